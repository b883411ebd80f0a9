"""The shared sign-in store's rules (revetly_core.auth.signin_store), one test each."""

from __future__ import annotations

from revetly_core.auth.signin_store import SignInStore, is_stale


def _store(now: list[float], max_pending: int | None = None) -> SignInStore[str, str]:
    return SignInStore(lambda: now[0], signin_ttl=10.0, session_ttl=100.0, max_pending=max_pending)


def test_an_entry_is_stale_only_past_its_ttl() -> None:
    assert not is_stale(0.0, 10.0, 10.0)
    assert is_stale(0.0, 10.5, 10.0)


def test_a_held_sign_in_is_finished_once_within_its_ttl() -> None:
    now = [0.0]
    store = _store(now)
    state = store.hold("verifier")
    assert store.finish(state) == "verifier"
    assert store.finish(state) is None
    late = store.hold("late")
    now[0] += 11.0
    assert store.finish(late) is None
    assert store.finish(None) is None and store.finish("") is None


def test_without_a_bound_started_sign_ins_are_all_kept() -> None:
    store = _store([0.0])
    states = [store.hold(str(n)) for n in range(50)]
    assert [store.finish(s) for s in states] == [str(n) for n in range(50)]


def test_a_bound_forgets_the_oldest_started_sign_in_first() -> None:
    store = _store([0.0], max_pending=2)
    first, second, third = store.hold("a"), store.hold("b"), store.hold("c")
    assert (store.finish(first), store.finish(second), store.finish(third)) == (None, "b", "c")


def test_a_kept_session_lives_until_its_ttl_or_close() -> None:
    now = [0.0]
    store = _store(now)
    sid = store.keep("dana")
    assert store.live(sid) == "dana" and store.live(None) is None and store.live("other") is None
    now[0] += 101.0
    assert store.live(sid) is None
    kept = store.keep("bo")
    store.close(kept)
    store.close(None)
    assert store.live(kept) is None


def test_starting_a_sign_in_sweeps_what_has_expired() -> None:
    now = [0.0]
    store = _store(now)
    store.hold("old")
    store.keep("old session")
    now[0] += 101.0
    store.hold("new")
    assert len(store._pending) == 1 and not store._sessions
