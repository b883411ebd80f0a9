"""`revetly doctor --token`: the endpoint's verifier on one token, with no client involved."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.mcp.http.served_handles import IssuerHandle, auth_block

GRANTS = '\n[auth.grants]\nclaim = "groups"\n[auth.grants.values]\n"team-b" = ["beta"]\n'
RESOURCE = "http://127.0.0.1:8765/mcp"  # [served] defaults: the resource a token is for


def _doctor(root: Path, token: str) -> tuple[int, dict[str, object]]:
    done = subprocess.run([sys.executable, "-m", "revetly_cli", "doctor", "--token", token,
                           "--instance", str(root)], capture_output=True, text=True, timeout=120)
    return done.returncode, json.loads(done.stdout)


def test_a_good_token_reports_who_it_is_and_what_it_reaches(
        duo: Path, issuer: IssuerHandle) -> None:
    config = duo / "revetly.toml"
    config.write_text(config.read_text() + "\n" + auth_block(issuer) + GRANTS)
    code, report = _doctor(duo, issuer.token("bea", RESOURCE, groups="team-b", email="b@x.org"))
    assert code == 0
    assert report["resource"] == RESOURCE
    token = report["token"]
    assert isinstance(token, dict)
    assert token["verified"] is True and token["sub"] == "bea" and token["may_approve"] is True
    assert report["projects"] == ["beta"]
    code, nothing = _doctor(duo, issuer.token("ned", RESOURCE, groups="interns"))
    assert code == 0 and nothing["projects"] == []
    assert nothing["grant"]["values"] == ["interns"]  # type: ignore[index]


def test_a_refused_token_says_why_and_exits_1(synced_instance: Path, issuer: IssuerHandle) -> None:
    config = synced_instance / "revetly.toml"
    config.write_text(config.read_text() + "\n" + auth_block(issuer))
    code, report = _doctor(synced_instance, issuer.token("ana", "https://other.example/mcp"))
    assert code == 1
    token = report["token"]
    assert isinstance(token, dict) and token["verified"] is False
    assert "https://other.example/mcp" in str(token["reason"])
    code, machine = _doctor(synced_instance, issuer.machine_token("ci-bot", RESOURCE))
    assert code == 0 and machine["token"]["may_approve"] is False  # type: ignore[index]


def test_without_a_verifier_doctor_token_is_refused_naming_the_setting(
        synced_instance: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "revetly_cli", "doctor", "--token", "x",
                           "--instance", str(synced_instance), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert json.loads(done.stdout)["refusal"]["setting"] == "auth.verifier"
