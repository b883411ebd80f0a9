"""Who a verified token says the caller is."""

from __future__ import annotations

from revetly_core.auth import is_machine_token, principal_of_claims, subject_record, token_source


def test_a_person_is_their_sub_verified_with_email() -> None:
    p = principal_of_claims({"sub": "u-42", "iss": "https://auth.example/", "name": "Ana",
                             "email": "ana@example.com"})
    assert (p.name, p.kind, p.verified, p.email) == ("u-42", "person", True, "ana@example.com")
    assert p.source == "token:https://auth.example/"


def test_two_issuers_never_share_a_source() -> None:
    assert token_source("https://a/") != token_source("https://b/")


def test_a_client_credentials_token_is_a_machine() -> None:
    assert is_machine_token({"sub": "robot", "gty": "client_credentials"})
    assert is_machine_token({"sub": "robot", "client_id": "robot"})
    assert principal_of_claims({"sub": "robot", "client_id": "robot"}).kind == "machine"


def test_a_signed_in_person_is_not_a_machine() -> None:
    assert not is_machine_token({"sub": "u-42", "client_id": "revetly-client"})


def test_the_subject_record_carries_name_and_email_only_where_published() -> None:
    assert subject_record({"sub": "u", "iss": "i"}) == {"sub": "u", "iss": "i"}
    assert subject_record({"sub": "u", "iss": "i", "name": "U", "email": ""}) == {
        "sub": "u", "iss": "i", "name": "U"}
