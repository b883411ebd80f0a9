"""The azure-devops source end to end: a real instance syncing from a fake Azure DevOps on
127.0.0.1."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from revetly_core.connectors.azure_devops import basic_auth
from revetly_core.refusal import Refusal

from revetly_core import Engine
from tests.core.connectors.azure_devops_instance import TOKEN, TOKEN_ENV, azure_devops_instance
from tests.support.fake_azure_devops import FakeAzureDevOps, serving

WIQL, BATCH, REVISIONS = "/wiql", "/workitemsbatch", "/reporting/workitemrevisions"
SOURCE = "azure-devops/web"


def _counts(summary: dict[str, Any]) -> dict[str, int]:
    rows = {r["source"]: r for r in summary["sources"]}
    return dict(rows[SOURCE]["counts"])


def _health(engine: Engine) -> dict[str, Any]:
    return {s["source"]: s for s in engine.context_health()["sources"]}[SOURCE]


def _tracker_problems(engine: Engine) -> list[dict[str, Any]]:
    return [p for p in engine.check()["problems"] if p.get("source") == SOURCE]


def _populate(fake: FakeAzureDevOps) -> None:
    fake.add_item(1, "Offline sync", work_item_type="Epic", state="Active")
    fake.add_item(2, "Resolve conflicts on reconnect", state="Active", parent=1, related=(3,),
                  description="<div>The merge rule.</div>", tags=("sync", "mobile"),
                  assigned_to="Ana Lee")
    fake.add_item(3, "Crash on empty queue", work_item_type="Bug", state="Closed")
    fake.add_item(4, "Dark mode", state="Removed")
    fake.add_item(5, "Ask the vendor about quotas", work_item_type="Issue", state="To Do")
    fake.add_item(6, "Release test plan", work_item_type="Test Plan", state="Design")
    fake.add_child(1, 2)
    fake.touch(2, history="<div>Started on the merge rule.</div><div>More later.</div>")


@pytest.fixture()
def synced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
           ) -> Iterator[tuple[Engine, FakeAzureDevOps]]:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeAzureDevOps()
    with serving(fake):
        _populate(fake)
        engine = azure_devops_instance(tmp_path, fake.url)
        engine.sync()
        yield engine, fake


def test_work_items_land_with_their_ids_types_and_statuses(
        synced: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, _ = synced
    got = {i: engine.get_artifact(f"ADO-{i}") for i in range(1, 7)}
    assert [(got[i]["artifact_type"], got[i]["status"]) for i in range(1, 7)] == [
        ("epic", "in-progress"), ("story", "in-progress"), ("bug", "done"),
        ("story", "discarded"), ("issue", "ready"), ("test-plan", "ready")]
    assert got[2]["title"] == "Resolve conflicts on reconnect"
    assert got[2]["body"] == "The merge rule."
    assert got[2]["owner"] == "ana@fabrikam.example"
    assert got[2]["source_uri"].endswith("/fabrikam/Fabrikam%20Web/_workitems/edit/2")


def test_parent_and_related_links_are_declared(synced: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, _ = synced
    links = engine.get_artifact("ADO-2")["declared_links"]
    assert links["parent"] == ["ADO-1"] and links["related"] == ["ADO-3"]
    meta = engine.get_artifact("ADO-1", history_after="")["metadata"]
    assert meta["children"] == ["ADO-2"]


def test_revisions_are_the_items_history(synced: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, _ = synced
    entries = engine.get_artifact("ADO-2", history_after="")["history_entries"]
    assert [(e["revision"], e["change"], e["summary"]) for e in entries] == [
        ("rev/1", "created", "state Active"), ("rev/2", "commented", "Started on the merge rule.")]


def test_the_metadata_keeps_what_outside_backlog_needs(
        synced: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, _ = synced
    meta = {i: engine.get_artifact(f"ADO-{i}", history_after="")["metadata"] for i in (2, 5, 6)}
    assert meta[2]["typed_by"] == "native_type:User Story"
    assert meta[2]["labels"] == ["sync", "mobile"] and meta[2]["state_category"] == "InProgress"
    assert (meta[5]["native_type"], meta[5]["untyped_why"]) == ("Issue", "unmapped")
    assert (meta[6]["native_type"], meta[6]["untyped_why"]) == ("Test Plan", "unmapped")
    assert meta[2]["area_path"] == "Fabrikam Web"
    assert meta[2]["iteration_path"] == "Fabrikam Web\\Sprint 1"


def test_the_first_pass_asks_wiql_batches_states_and_revisions(
        synced: tuple[Engine, FakeAzureDevOps]) -> None:
    _, fake = synced
    assert fake.paths_requested() == [
        WIQL, BATCH, "/workitemtypes/Epic/states", "/workitemtypes/Bug/states",
        "/workitemtypes/User Story/states", "/workitemtypes/Issue/states",
        "/workitemtypes/Test Plan/states", REVISIONS]
    wiql, batch = fake.requests[0], fake.requests[1]
    assert wiql.method == "POST" and wiql.query["api-version"] == "7.1"
    assert wiql.query["timePrecision"] == "true"
    assert wiql.headers["authorization"] == basic_auth(TOKEN)
    assert "ChangedDate] >=" not in wiql.body["query"]
    assert batch.body["ids"] == [1, 3, 4, 5, 6, 2] and batch.body["$expand"] == "relations"
    assert batch.body["asOf"] and batch.body["errorPolicy"] == "omit"
    assert "continuationToken" not in fake.requests[-1].query


def test_an_incremental_pass_after_three_changes_is_three_requests(
        synced: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, fake = synced
    newest = fake.items[2].changed
    fake.touch(1, **{"System.Title": "Offline sync, reworked"})
    fake.touch(5, **{"System.WorkItemType": "User Story", "System.State": "Active"})
    fake.touch(3, history="Reopened? No, just noting.")
    fake.requests.clear()
    summary = engine.sync()
    assert fake.paths_requested() == [WIQL, BATCH, REVISIONS]
    assert f"([System.ChangedDate] > '{newest}' OR ([System.ChangedDate] = '{newest}' AND " \
        "[System.Id] NOT IN (2)))" in fake.requests[0].body["query"]
    assert fake.requests[1].body["ids"] == [1, 5, 3]
    assert fake.requests[2].query["continuationToken"] == "7"
    assert engine.get_artifact("ADO-1")["title"] == "Offline sync, reworked"
    assert (engine.get_artifact("ADO-5")["artifact_type"],
            engine.get_artifact("ADO-5")["status"]) == ("story", "in-progress")
    notes = engine.get_artifact("ADO-3", history_after="")["history_entries"]
    assert notes[-1]["summary"] == "Reopened? No, just noting."
    assert _counts(summary)["updated"] == 3


def test_a_quiet_pass_is_one_wiql_request(synced: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, fake = synced
    fake.requests.clear()
    summary = engine.sync()
    assert fake.paths_requested() == [WIQL]
    assert _counts(summary)["updated"] == 0


def test_the_item_read_at_the_cursor_is_read_again_when_it_changes(
        synced: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, fake = synced
    fake.touch(2, **{"System.Title": "Resolve conflicts, take two"})
    fake.requests.clear()
    engine.sync()
    assert fake.requests[1].body["ids"] == [2]
    assert engine.get_artifact("ADO-2")["title"] == "Resolve conflicts, take two"


def test_a_new_work_item_type_is_asked_its_states_once(
        synced: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, fake = synced
    fake.states["Feature"] = [("New", "Proposed"), ("In Build", "InProgress")]
    fake.add_item(7, "Offline banner", work_item_type="Feature", state="In Build")
    fake.requests.clear()
    engine.sync()
    assert fake.paths_requested() == [WIQL, BATCH, "/workitemtypes/Feature/states", REVISIONS]
    assert engine.get_artifact("ADO-7")["status"] == "in-progress"


def test_a_work_item_gone_from_a_full_listing_is_removed(
        synced: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, fake = synced
    del fake.items[6]
    engine.sync()
    assert "deleted" not in engine.get_artifact("ADO-6")  # an incremental pass lists a window
    engine.sync(full=True)
    assert engine.get_artifact("ADO-6", deleted="include")["deleted"] is True


def test_an_item_deleted_between_the_query_and_the_batch_is_skipped(
        synced: tuple[Engine, FakeAzureDevOps]) -> None:
    engine, fake = synced
    fake.touch(4, **{"System.Title": "Dark mode, again"})
    fake.served[4] = None
    summary = engine.sync()
    assert summary["outcome"] == "succeeded" and not _tracker_problems(engine)
    assert engine.get_artifact("ADO-4")["title"] == "Dark mode"


def test_the_area_path_filters_the_listing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeAzureDevOps()
    with serving(fake):
        fake.add_item(1, "In the app", area="Fabrikam Web\\App")
        fake.add_item(2, "In the app's sync", area="Fabrikam Web\\App\\Sync")
        fake.add_item(3, "In the site", area="Fabrikam Web\\Site")
        engine = azure_devops_instance(tmp_path, fake.url, extra='area = "Fabrikam Web\\\\App"\n')
        engine.sync()
        assert "[System.AreaPath] UNDER 'Fabrikam Web\\App'" in fake.requests[0].body["query"]
        assert engine.get_artifact("ADO-2")["title"] == "In the app's sync"
        with pytest.raises(Refusal) as exc:
            engine.get_artifact("ADO-3")
        assert exc.value.code == "not-found"


def test_revisions_page_by_their_continuation_token(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeAzureDevOps()
    fake.max_page = 2
    with serving(fake):
        _populate(fake)
        engine = azure_devops_instance(tmp_path, fake.url)
        engine.sync()
        pages = [r for r in fake.requests if r.path.endswith(REVISIONS)]
        assert [r.query.get("continuationToken") for r in pages] == [None, "2", "4", "6"]
        assert len(engine.get_artifact("ADO-2", history_after="")["history_entries"]) == 2
        fake.touch(6, history="Signed off.")
        fake.requests.clear()
        engine.sync()
        assert [r.query.get("continuationToken") for r in fake.requests
                if r.path.endswith(REVISIONS)] == ["7"]
        notes = engine.get_artifact("ADO-6", history_after="")["history_entries"]
        assert notes[-1]["summary"] == "Signed off."


def test_a_continuation_token_in_the_header_is_the_watermark(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeAzureDevOps()
    fake.continuation_header = True
    with serving(fake):
        _populate(fake)
        engine = azure_devops_instance(tmp_path, fake.url)
        engine.sync()
        fake.touch(4, history="Kept for later.")
        fake.requests.clear()
        engine.sync()
        assert fake.requests[-1].query["continuationToken"] == "7"
        assert engine.get_artifact("ADO-4", history_after="")["history_entries"][-1][
            "summary"] == "Kept for later."


def _backlog(fake: FakeAzureDevOps, count: int) -> None:
    for n in range(1, count + 1):
        fake.add_item(n, f"Work item number {n}")


def test_a_throttle_mid_backfill_is_partial_and_the_next_pass_completes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeAzureDevOps()
    with serving(fake):
        _backlog(fake, 450)
        fake.throttle(BATCH, after=1)
        engine = azure_devops_instance(tmp_path, fake.url)
        first = engine.sync()
        assert _health(engine)["partial"] is True and _counts(first)["added"] == 200
        named = [p for p in _tracker_problems(engine) if p["code"] == "tracker-rate-limited"]
        assert named and named[0]["path"] == "workitems"
        assert "3600 s" in named[0]["detail"]
        fake.requests.clear()
        second = engine.sync()
        assert _health(engine)["partial"] is False and _counts(second)["added"] == 250
        assert f"> '{fake.items[200].changed}'" in fake.requests[0].body["query"]
        assert fake.requests[1].body["ids"][0] == 201  # the item at the cursor is not re-read
        assert engine.get_artifact("ADO-450")["title"] == "Work item number 450"
        assert not [p for p in _tracker_problems(engine) if p["code"].startswith("tracker-")]


@pytest.mark.parametrize("status", [429, 503])
def test_a_throttle_within_the_cap_is_waited_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 status: int) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeAzureDevOps()
    with serving(fake):
        _populate(fake)
        fake.throttle(WIQL, retry_after=0, status=status)
        engine = azure_devops_instance(tmp_path, fake.url)
        engine.sync()
        assert fake.paths_requested()[:2] == [WIQL, WIQL]
        assert _health(engine)["partial"] is False
        assert engine.get_artifact("ADO-6")["title"] == "Release test plan"


def test_a_disconnect_mid_backfill_is_partial_and_resumes(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeAzureDevOps()
    with serving(fake):
        _backlog(fake, 250)
        fake.fail(BATCH, disconnect=True, after=1)
        engine = azure_devops_instance(tmp_path, fake.url)
        first = engine.sync()
        assert _counts(first)["added"] == 200 and _health(engine)["partial"] is True
        assert [p["code"] for p in _tracker_problems(engine)] == ["tracker-disconnected"]
        second = engine.sync()
        assert _counts(second)["added"] == 50 and _health(engine)["partial"] is False


def test_a_server_error_past_the_retries_is_partial(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeAzureDevOps()
    with serving(fake):
        _populate(fake)
        fake.fail(REVISIONS, status=500)
        engine = azure_devops_instance(tmp_path, fake.url)
        engine.sync()
        assert _health(engine)["partial"] is True
        assert [p["code"] for p in _tracker_problems(engine)] == ["tracker-server-error"]
        assert engine.get_artifact("ADO-1")["title"] == "Offline sync"
        engine.sync()
        assert len(engine.get_artifact("ADO-2", history_after="")["history_entries"]) == 2


def test_malformed_json_is_named_and_the_pass_continues(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeAzureDevOps()
    with serving(fake):
        fake.add_item(1, "Fine")
        fake.fail(WIQL, status=200, body=b'{"workItems": [{"id": 1,')
        engine = azure_devops_instance(tmp_path, fake.url)
        summary = engine.sync()
        assert summary["outcome"] == "succeeded" and _health(engine)["partial"] is True
        assert [p["code"] for p in _tracker_problems(engine)] == ["tracker-malformed"]
        engine.sync()
        assert engine.get_artifact("ADO-1")["title"] == "Fine"


def test_a_hostile_work_item_is_named_never_a_crash(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeAzureDevOps()
    with serving(fake):
        fake.add_item(1, "Fine")
        fake.add_item(2, "Huge", description="x" * 2_000_000)
        fake.add_item(3, "Wrong tags")
        fake.items[3].fields["System.Tags"] = ["bug"]
        fake.add_item(4, "No fields")
        fake.served[4] = {"id": 4, "rev": 1, "fields": "none"}
        fake.add_item(5, "Not an object")
        fake.served[5] = [5]
        engine = azure_devops_instance(tmp_path, fake.url)
        engine.sync()
        assert engine.get_artifact("ADO-1")["title"] == "Fine"
        problems = {p["path"]: p for p in _tracker_problems(engine)}
        assert {"workitems/2", "workitems/3", "workitems/4", "workitems/5"} <= set(problems)
        assert "byte limit" in problems["workitems/2"]["detail"]
        assert "'System.Tags'" in problems["workitems/3"]["detail"]


def test_a_link_to_another_origin_ends_the_read_before_the_token_goes_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)

    class Elsewhere(FakeAzureDevOps):
        def revisions_page(self, path: str, query: dict[str, str]) -> tuple[int, Any]:
            status, data = super().revisions_page(path, query)
            data.update(isLastBatch=False, nextLink="http://127.0.0.2:9/collect?continuationToken=1")
            return status, data

    fake = Elsewhere()
    with serving(fake):
        _populate(fake)
        engine = azure_devops_instance(tmp_path, fake.url)
        engine.sync()
        problems = _tracker_problems(engine)
    assert [p["code"] for p in problems] == ["tracker-refused"]
    assert "outside the configured api_url" in problems[0]["detail"]
    assert all(r.path.startswith("/fabrikam/") for r in fake.requests)


def test_the_token_never_reaches_context_logs_or_answers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeAzureDevOps()
    caplog.set_level(logging.DEBUG)
    with serving(fake):
        _populate(fake)
        fake.fail(WIQL, status=401, body=b'{"$id": "1", "message": "TF400813: not authorized"}')
        engine = azure_devops_instance(tmp_path, fake.url)
        answers = [engine.sync(), engine.check(), engine.sync(), engine.context_health(),
                   engine.get_artifact("ADO-2", history_after=""), engine.search_context("sync")]
    encoded = basic_auth(TOKEN).removeprefix("Basic ")
    assert "TF400813" in json.dumps(answers[1]) and "check the token" in json.dumps(answers[1])
    for secret in (TOKEN, encoded):
        assert secret not in json.dumps(answers, default=str)
        assert secret not in caplog.text
        for path in (engine.root / ".revetly").rglob("*"):
            if path.is_file():
                assert secret.encode() not in path.read_bytes(), path
        assert secret not in (engine.root / "revetly.toml").read_text()


def test_without_a_token_the_read_is_anonymous(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    fake = FakeAzureDevOps()
    with serving(fake):
        fake.add_item(1, "Public work item")
        engine = azure_devops_instance(tmp_path, fake.url)
        engine.sync()
    assert "authorization" not in fake.requests[0].headers
    assert engine.get_artifact("ADO-1")["title"] == "Public work item"


def test_a_type_whose_states_are_refused_is_named_and_its_items_land_ready(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeAzureDevOps()
    with serving(fake):
        fake.add_item(1, "Inherited type", work_item_type="Risk", state="Open")
        engine = azure_devops_instance(tmp_path, fake.url)
        summary = engine.sync()
        assert summary["outcome"] == "succeeded" and _health(engine)["partial"] is False
        problems = _tracker_problems(engine)
    assert [(p["path"], p["code"]) for p in problems] == [("workitemtypes/Risk", "unknown-states")]
    assert (engine.get_artifact("ADO-1")["status"], engine.get_artifact("ADO-1")["artifact_type"]
            ) == ("ready", "risk")


def test_acceptance_criteria_come_from_their_own_field(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    fake = FakeAzureDevOps()
    with serving(fake):
        fake.add_item(1, "Offline sync", acceptance_criteria="<ul><li>Edits sync</li>"
                      "<li>Conflicts are shown</li></ul>")
        engine = azure_devops_instance(tmp_path, fake.url)
        engine.sync()
    assert engine.get_artifact("ADO-1")["acceptance_criteria"] == ["Edits sync",
                                                                   "Conflicts are shown"]
