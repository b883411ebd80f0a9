"""The one ISO-8601 helper: the UTC clock's text and reading a date or date-time back."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st
from revetly_core.isotime import iso_utc, parse_iso_utc, utc_now

AWARE = st.datetimes(min_value=dt.datetime(1971, 1, 1), max_value=dt.datetime(2200, 1, 1),
                     timezones=st.just(dt.UTC))


def test_utc_now_is_aware_utc() -> None:
    assert utc_now().tzinfo is dt.UTC


def test_iso_utc_to_the_second_drops_microseconds() -> None:
    when = dt.datetime(2025, 3, 1, 12, 30, 5, 123456, tzinfo=dt.UTC)
    assert iso_utc(when, to_second=True) == "2025-03-01T12:30:05+00:00"
    assert iso_utc(when) == "2025-03-01T12:30:05.123456+00:00"


def test_iso_utc_converts_another_zone_to_utc() -> None:
    when = dt.datetime(2025, 3, 1, 14, 0, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert iso_utc(when) == "2025-03-01T12:00:00+00:00"


@given(AWARE)
def test_parse_reads_back_what_iso_utc_writes(when: dt.datetime) -> None:
    assert parse_iso_utc(iso_utc(when)) == when


def test_a_date_is_midnight_utc() -> None:
    assert parse_iso_utc("2025-03-01") == dt.datetime(2025, 3, 1, tzinfo=dt.UTC)


def test_a_time_without_a_zone_is_utc_and_z_is_utc() -> None:
    assert parse_iso_utc("2025-03-01T10:00") == dt.datetime(2025, 3, 1, 10, tzinfo=dt.UTC)
    assert parse_iso_utc("2025-03-01T10:00Z") == dt.datetime(2025, 3, 1, 10, tzinfo=dt.UTC)


def test_a_stated_zone_is_kept() -> None:
    when = parse_iso_utc(" 2025-03-01T10:00+02:00 ")
    assert when is not None and when.utcoffset() == dt.timedelta(hours=2)


@given(st.text(max_size=40))
def test_parse_never_raises(text: str) -> None:
    out = parse_iso_utc(text)
    assert out is None or out.tzinfo is not None


def test_text_that_is_no_date_is_none() -> None:
    assert parse_iso_utc("yesterday") is None
    assert parse_iso_utc("2025-13-01") is None
