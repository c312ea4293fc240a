"""The catalog's rows: a run's key and id, its flattened summary (the `metrics` column),
and the row itself, for the store that writes them and for the adoption of run folders
that describe themselves (store_adopt.py)."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from json.encoder import encode_basestring
from typing import Any

from sctplab import _core


def canonical_json(value: Any) -> str:
    """One spelling per value (sorted keys, no spaces), so equal overrides give equal keys."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def scenario_hash(resolved_toml: str) -> str:
    """Content hash of the base scenario as the core resolved it (comments and key order
    of the file do not matter, values and defaults do)."""
    return hashlib.sha256(resolved_toml.encode()).hexdigest()


@dataclass(frozen=True)
class RunKey:
    """What identifies a run in the catalog (the UNIQUE constraint)."""

    scenario_hash: str
    overrides: str
    seed: int
    code_version: str

    @cached_property
    def run_id(self) -> str:
        # 64 bits of the key's hash: a folder name of fixed length, unique in practice.
        # Cached: the driver asks for it several times per run.
        text = canonical_json([self.scenario_hash, self.overrides, self.seed, self.code_version])
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @classmethod
    def of_point(
        cls, scenario_hash: str, overrides: str, code_version: str
    ) -> Callable[[int], RunKey]:
        """The keys of one grid point, seed by seed, with `run_id` made from the parts of
        its text that do not change with the seed, joined once: canonical_json per run
        (json.dumps builds a new encoder for its options every call) was about a fifth
        of the driver's instructions per run on millisecond runs. Same ids (tests
        compare with `run_id`)."""
        # canonical_json of a list of strings, joined by hand (json's own string encoder).
        head = f"[{encode_basestring(scenario_hash)},{encode_basestring(overrides)},"
        tail = f",{encode_basestring(code_version)}]"
        sha256 = hashlib.sha256

        def key(seed: int) -> RunKey:
            made = cls(scenario_hash, overrides, seed, code_version)
            if type(seed) is int:
                # json writes an int as its repr; cached_property reads the instance dict.
                made.__dict__["run_id"] = sha256(f"{head}{seed}{tail}".encode()).hexdigest()[:16]
            return made

        return key


def metrics_json(summary_json: str) -> str:
    """The catalog's `metrics` column of a run: summary.json as one flat JSON object
    (`flows.tcp1.goodput_bps`, `links.r1->k1.utilization`, `sim_time_s`, `events`;
    keys sorted, no spaces, lists as their compact JSON, `scenario` and `seed` left out,
    Python's spelling of every value), made by the one writer, `_core.catalog_metrics`
    (crates/sctplab-py/src/flat_metrics.rs), which the workers also call. A text it
    does not take is not a summary sctplab wrote (not a JSON object, keys out of order
    or repeated, a lone surrogate, an infinite number): ValueError."""
    text = _core.catalog_metrics(summary_json)
    if text is None:
        raise ValueError("summary.json is not a summary sctplab wrote (not flattened)")
    return text


def now_text() -> str:
    """`datetime.now(UTC).isoformat(timespec="microseconds")`, the date and time of day
    formatted once per second: isoformat cost the driver ~13K instructions per run.
    Both read the system clock and round down to the microsecond."""
    global _second
    ns = time.time_ns()
    sec = ns // 1_000_000_000
    if sec != _second[0]:
        _second = (sec, datetime.fromtimestamp(sec, UTC).isoformat(timespec="seconds")[:-6])
    return f"{_second[1]}.{ns // 1000 % 1_000_000:06d}+00:00"


# (Unix second, its "YYYY-MM-DDTHH:MM:SS") of the last now_text().
_second: tuple[int, str] = (-1, "")


def catalog_row(
    key: RunKey,
    scenario: str,
    status: str,
    error: str | None,
    path: str | None,
    wall: float | None,
    events: int | None,
    metrics: str | None,
    run_json: Mapping[str, Any] | None,
    created: str | None = None,
) -> tuple[Any, ...]:
    run_json = run_json or {}
    host = run_json.get("host")
    dirty = run_json.get("git_dirty")
    return (
        key.run_id,
        key.scenario_hash,
        key.overrides,
        key.seed,
        key.code_version,
        scenario,
        status,
        error,
        path,
        wall,
        events,
        metrics,
        run_json.get("sctplab_version"),
        run_json.get("git_commit"),
        None if dirty is None else int(bool(dirty)),
        _host_json(host) if host is not None else None,
        created or now_text(),
    )


_last_host: tuple[Any, str] = (None, "null")


def _host_json(host: Any) -> str:
    """canonical_json(host), remembered: a worker sends the same host for every run."""
    global _last_host
    if host != _last_host[0]:
        _last_host = (host, canonical_json(host))
    return _last_host[1]
