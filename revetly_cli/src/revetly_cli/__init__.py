"""The revetly command line: parses arguments, calls one core function, prints its payload."""

import os

__all__ = ["main"]


def main() -> None:
    """Run the revetly command.

    pydantic scans every installed package for plugins on first use; the command uses none,
    so the scan is skipped unless PYDANTIC_DISABLE_PLUGINS is already set.
    """
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from revetly_cli.app import main as run

    run()
