"""The catalog's metrics column, made by its one writer (`_core.catalog_metrics`, which the
workers and `store_rows.metrics_json` call) against an oracle written here by the obvious
recursion over `json.loads` (the Python flattening the store used before, sorted and
compact `json.dumps`): the same text, so the store and every reader of it are unchanged."""

from __future__ import annotations

import json
import math
import random
import sqlite3
import struct
from pathlib import Path

import pytest
from conftest import SCENARIOS, sctplab

from sctplab import _core
from sctplab.store_rows import metrics_json


def _oracle(summary_json: str) -> str:
    """The flat metrics text by the plain recursion: every table's entries joined with
    dots (a later entry of the same flattened key wins, as a dict assignment), a list as
    its compact JSON, `scenario` and `seed` of the top table left out, keys sorted."""
    flat: dict[str, object] = {}

    def compact(v: object) -> str:
        return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def walk(prefix: str, table: dict[str, object]) -> None:
        for k, v in table.items():
            if isinstance(v, dict):
                walk(f"{prefix}{k}.", v)
            else:
                flat[f"{prefix}{k}"] = compact(v) if isinstance(v, list) else v

    top = json.loads(summary_json)
    walk("", {k: v for k, v in top.items() if k not in ("scenario", "seed")})
    return compact(flat)


# Every shipped scenario and a few golden ones: CBR, TCP variants, SCTP single- and
# multihomed (per-path tables, stream lists), snoop, satellite, and the wireless ones
# (per-node MAC/AODV/ARP tables), cut short where a run is long.
SHORT = [("duration", "22s"), ("measure.end", "22s")]
CASES = [
    *(
        (p.name, SHORT if p.name.startswith(("manet", "routing")) else [])
        for p in sorted(SCENARIOS.glob("*.toml"))
    ),
    *(
        (f"golden/{name}.toml", [])
        for name in ("seed000-sctp-fig9", "seed002-sctp-newreno-2star-d3", "seed002-tcp-fack-d5")
    ),
    ("manet.toml", [*SHORT, ("nodes.n0.wlan", "2"), ("nodes.n1.wlan", "2")]),
]


@pytest.mark.parametrize(("name", "sets"), CASES, ids=[f"{n}{'+' * len(s)}" for n, s in CASES])
def test_metrics_equal_the_oracle_on_real_summaries(name: str, sets: list[tuple[str, str]]) -> None:
    text = (SCENARIOS / name).read_text()
    for seed in (1, 7):
        raw = _core.run(text, source=name, sets=sets, seed=seed, catalog_metrics=True)
        want = _oracle(raw["summary_json"])
        assert raw.get("metrics_json") == want, (name, seed)
        assert metrics_json(raw["summary_json"]) == want, (name, seed)


def _random_float(rng: random.Random) -> float:
    kind = rng.randrange(4)
    if kind == 0:  # any finite double, subnormals included
        while True:
            (x,) = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))
            if math.isfinite(x):
                return float(x)
    if kind == 1:  # around the fixed/exponent boundaries of repr (1e-4, 1e16)
        return rng.choice((-1, 1)) * rng.random() * 10.0 ** rng.randint(-7, 19)
    if kind == 2:  # rates and times as a run computes them
        return rng.randrange(1, 10**9) * 8 / rng.choice((0.5, 3.0, 7.0, 920.0, 1e9))
    return float(rng.randrange(-(10**17), 10**17))


def _random_value(rng: random.Random, depth: int) -> object:
    pick = rng.randrange(9 if depth < 3 else 6)
    if pick == 0:
        return _random_float(rng)
    if pick == 1:
        return rng.randrange(-(2**70), 2**70) if rng.random() < 0.1 else rng.randrange(10**6)
    if pick == 2:
        return rng.choice([None, True, False])
    if pick in (3, 4, 5):
        alphabet = 'ab.:->"\\/\n\t\x01\x1f\x7féß→😀 '
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(6)))
    if pick in (6, 7):
        return {
            "".join(rng.choice('ab.é"\\') for _ in range(rng.randrange(1, 4))): _random_value(
                rng, depth + 1
            )
            for _ in range(rng.randrange(4))
        }
    return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def test_metrics_equal_the_oracle_on_random_summaries() -> None:
    # Every kind of value a summary could hold, written as json.dumps writes it, compact
    # and as the core does (pretty, non-ASCII raw), keys sorted as serde_json sorts them.
    rng = random.Random(20261124)
    for i in range(3000):
        summary = {
            "scenario": "s",
            "seed": i,
            **{f"k{j}": _random_value(rng, 0) for j in range(rng.randrange(1, 8))},
        }
        for text in (
            json.dumps(summary, sort_keys=True),
            json.dumps(summary, sort_keys=True, indent=2, ensure_ascii=False),
        ):
            assert metrics_json(text) == _oracle(text), text


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1e5, "b": 1E-7, "c": -0, "d": 0.0, "e": -0.0, "f": 123456789012345678901234567890}',
        '{"a": {"b": 1}, "a.b": 2}',  # flattened keys that collide: the later one wins
        '{"a": {"b": 1}, "a-b": 3, "a.b": 2}',
        '{"b": [{"k": 1, "k": 2, "a": 0}]}',  # in a list, a table's last value per key
        '{"a": "\\u00e9\\ud83d\\ude00\\/\\b\\f"}',
        '{"scenario": "x", "seed": 1, "x": {"scenario": 3, "seed": 2}}',
        '{"scenario": {"a": 1}, "seed": [1], "z": 0}',
        '{"empty": {}, "list": [], "nested": [[1.5, {"b": null, "a": [true]}]]}',
    ],
)
def test_metrics_equal_the_oracle_on_edge_cases(text: str) -> None:
    assert metrics_json(text) == _oracle(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"a": NaN}',
        '{"a": Infinity}',
        '{"a": 1e400}',
        '{"a": "\\ud800"}',
        "[1, 2]",
        '{"b": 1, "a": 2}',  # keys out of order, which serde_json never writes
        '{"a": {"x": 1}, "a": {"y": 2}}',  # a repeated key: Python keeps the last table
    ],
)
def test_texts_sctplab_never_writes_are_refused(text: str) -> None:
    # Not a summary the core wrote: no metrics are made up for it (adoption skips such
    # a folder, store_adopt.py).
    assert _core.catalog_metrics(text) is None
    with pytest.raises(ValueError, match="not a summary sctplab wrote"):
        metrics_json(text)


def test_a_sweeps_catalog_holds_the_oracles_metrics(tmp_path: Path) -> None:
    # End to end, wired and wireless: each row's metrics is what the oracle makes from
    # the summary.json in the run's folder.
    store = tmp_path / "store"
    for scenario, extra in (
        ("example-tcp.toml", ["--grid", "links.bottleneck.loss.rate=[0.0,0.01]"]),
        ("manet-sctp.toml", ["--grid", 'duration=["22s"]', "--grid", 'measure.end=["22s"]']),
    ):
        r = sctplab("sweep", SCENARIOS / scenario, "--seeds", "2", "--jobs", "2",
                    "--store", store, *extra)  # fmt: skip
        assert r.returncode == 0, r.stderr
    conn = sqlite3.connect(store / "catalog.sqlite")
    try:
        rows = conn.execute("SELECT path, metrics FROM runs WHERE status = 'ok'").fetchall()
    finally:
        conn.close()
    assert len(rows) == 6
    for path, metrics in rows:
        assert metrics == _oracle((store / path / "summary.json").read_text())
