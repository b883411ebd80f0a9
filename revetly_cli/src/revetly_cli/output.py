"""What every command prints without rich: the payload as JSON, and a refusal as one line."""

from __future__ import annotations

import json
from typing import Any


def print_json(payload: dict[str, Any]) -> None:
    """The payload exactly as core returned it, one JSON document on stdout."""
    print(json.dumps(payload, indent=2, sort_keys=False, ensure_ascii=False))


def refusal_line(payload: dict[str, Any]) -> str:
    """A refusal as a user reads it: what was refused, then the fix."""
    from revetly_cli.render_text import visible
    from revetly_cli.wording import as_commands

    body = payload["refusal"]
    return visible(f"refused ({body['code']}): {body['detail']}") + "\n" + visible(
        f"  fix: {as_commands(body['fix'])}")
