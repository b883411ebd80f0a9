"""An instance in a temp folder that declares one `[[connectors.github]]` source reading a fake."""

from __future__ import annotations

from pathlib import Path

from revetly_core.ids import DEFAULT_FAMILIES

from revetly_core import Engine

TOKEN_ENV = "REVETLY_TEST_GH_TOKEN"
TOKEN = "ghp_test0123456789secretvalue"


def github_toml(url: str, *, extra: str = "") -> str:
    """The `[ids.families]` and `[[connectors.github]]` text of an instance reading ``url``."""
    families = "\n".join(f'{k} = "{v}"' for k, v in {**DEFAULT_FAMILIES, "GH": "story"}.items())
    return (f"\n[ids.families]\n{families}\n\n[[connectors.github]]\nname = \"app\"\n"
            f"repo = \"acme/app\"\napi_url = \"{url}\"\ntoken_env = \"{TOKEN_ENV}\"\n"
            f"prefix = \"GH\"\nmax_wait_seconds = 0\nretries = 0\n{extra}"
            "\n[connectors.github.types]\nstory = [\"story\", \"feature\"]\nbug = [\"bug\", \"Bug\"]\n"
            "epic = [\"epic\"]\n")


def github_instance(base: Path, url: str, *, extra: str = "") -> Engine:
    """A fresh instance whose revetly.toml reads the fake GitHub at ``url``."""
    root = base / "inst"
    Engine.init(root)
    toml = root / "revetly.toml"
    toml.write_text(toml.read_text() + github_toml(url, extra=extra))
    return Engine.open(root)
