"""The revetly command line: parses arguments, calls one core function, prints its payload."""

__all__ = ["main"]


def main() -> None:
    """Run the revetly command."""
    from revetly_cli.app import main as run

    run()
