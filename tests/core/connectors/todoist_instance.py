"""An instance in a temp folder that declares one `[[connectors.todoist]]` source reading a fake."""

from __future__ import annotations

from pathlib import Path

from revetly_core.ids import DEFAULT_FAMILIES

from revetly_core import Engine

TOKEN_ENV = "REVETLY_TEST_TODOIST_TOKEN"
TOKEN = "0123456789abcdef0123456789abcdefsecret42"


def todoist_toml(api_url: str, *, project: str = "App", extra: str = "") -> str:
    """The `[ids.families]` and `[[connectors.todoist]]` text of an instance reading ``api_url``."""
    families = "\n".join(f'{k} = "{v}"' for k, v in {**DEFAULT_FAMILIES, "TD": "story"}.items())
    return (f"\n[ids.families]\n{families}\n\n[[connectors.todoist]]\nname = \"app\"\n"
            f"project = \"{project}\"\napi_url = \"{api_url}\"\ntoken_env = \"{TOKEN_ENV}\"\n"
            f"prefix = \"TD\"\nmax_wait_seconds = 0\nretries = 0\n{extra}"
            "\n[connectors.todoist.types]\nstory = [\"story\", \"feature\"]\nbug = [\"bug\"]\n"
            "epic = [\"epic\"]\n")


def todoist_instance(base: Path, api_url: str, *, project: str = "App",
                     extra: str = "") -> Engine:
    """A fresh instance whose revetly.toml reads the fake Todoist at ``api_url``."""
    root = base / "inst"
    Engine.init(root)
    toml = root / "revetly.toml"
    toml.write_text(toml.read_text() + todoist_toml(api_url, project=project, extra=extra))
    return Engine.open(root)
