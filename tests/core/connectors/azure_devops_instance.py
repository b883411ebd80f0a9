"""An instance in a temp folder that declares one `[[connectors.azure-devops]]` source reading
a fake."""

from __future__ import annotations

from pathlib import Path

from revetly_core.ids import DEFAULT_FAMILIES

from revetly_core import Engine

TOKEN_ENV = "REVETLY_TEST_ADO_TOKEN"
TOKEN = "ado0123456789personalaccesstokensecret"


TYPES = 'epic = ["Epic"]\nstory = ["User Story"]\nbug = ["Bug"]\n'


def azure_devops_toml(url: str, *, extra: str = "", types: str = TYPES) -> str:
    """The `[ids.families]` and `[[connectors.azure-devops]]` text of an instance reading
    ``url``."""
    families = "\n".join(f'{k} = "{v}"' for k, v in {**DEFAULT_FAMILIES, "ADO": "story"}.items())
    return (f"\n[ids.families]\n{families}\n\n[[connectors.azure-devops]]\nname = \"web\"\n"
            f"organization = \"fabrikam\"\nproject = \"Fabrikam Web\"\napi_url = \"{url}\"\n"
            f"token_env = \"{TOKEN_ENV}\"\nprefix = \"ADO\"\nmax_wait_seconds = 0\nretries = 0\n"
            f"{extra}\n[connectors.azure-devops.types]\n{types}")


def azure_devops_instance(base: Path, url: str, *, extra: str = "",
                          types: str = TYPES) -> Engine:
    """A fresh instance whose revetly.toml reads the fake Azure DevOps at ``url``."""
    root = base / "inst"
    Engine.init(root)
    toml = root / "revetly.toml"
    toml.write_text(toml.read_text() + azure_devops_toml(url, extra=extra, types=types))
    return Engine.open(root)
