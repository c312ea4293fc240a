"""Seeded scenario fuzzer (issue 13, item 6): mutate the shipped scenarios as a hostile
user would and check the promise of README and docs/scenario.md for each outcome.

Every mutated scenario goes through the loader `sctplab run` uses (`read_scenario`,
`movement_file_sets`, `_core.resolve`), which validates everything without running.
The outcome must be either

- a valid scenario, or
- a `ScenarioError` / `UsageError` whose text is exactly one line, starts with the
  source (`<dict>` for the mutated document, `--set KEY=VALUE` for an override), and
  names the key path that was mutated, in the named form users write
  (`links.satellite.delay`).

Any other exception, a multi-line message, a file blamed for an override's key or an
error that names some other key fails the test with the mutated input in the message.
A sample of the mutants that validate is then run for a simulated second.

The RNG seed is fixed so a failure reproduces; `FUZZ_SEED` in the environment picks
another campaign.
"""

from __future__ import annotations

import copy
import json
import math
import os
import random
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import SCENARIOS

import sctplab
from sctplab import _core
from sctplab.runner import movement_file_sets
from sctplab.scenario_input import read_scenario

SEED = int(os.environ.get("FUZZ_SEED", "20261123"))
PER_CLASS = 600
SOURCE = "<dict>"

Doc = dict[str, Any]
# A key path as a list of segments: table keys (str) and list indexes (int).
Path_ = list[str | int]


def _load(path: Path) -> Doc:
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    mob = doc.get("mobility")
    if isinstance(mob, dict) and isinstance(mob.get("file"), str):
        # A dict resolves relative paths against the working directory, the file
        # against its folder: make the movement file absolute so both agree.
        mob["file"] = str((path.parent / mob["file"]).resolve())
    return doc


SHIPPED: dict[str, Doc] = {p.stem: _load(p) for p in sorted(SCENARIOS.glob("*.toml"))}


def named(doc: Doc, path: Path_) -> str:
    """The dotted path the loader prints: list entries by their name, else by index."""
    out: list[str] = []
    cur: Any = doc
    for seg in path:
        if isinstance(seg, int):
            item = cur[seg] if isinstance(cur, list) and seg < len(cur) else None
            name = item.get("name") if isinstance(item, dict) else None
            out.append(name if isinstance(name, str) else str(seg))
            cur = item
        else:
            out.append(seg)
            cur = cur.get(seg) if isinstance(cur, dict) else None
    return ".".join(out)


def walk(node: Any, path: Path_) -> list[tuple[Path_, Any]]:
    """Every (path, value) below `node`, tables and lists included."""
    found: list[tuple[Path_, Any]] = []
    if isinstance(node, dict):
        for k, v in node.items():
            found.append(([*path, k], v))
            found.extend(walk(v, [*path, k]))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            if isinstance(v, dict):
                found.append(([*path, i], v))
                found.extend(walk(v, [*path, i]))
    return found


def leaves(doc: Doc) -> list[tuple[Path_, Any]]:
    """Values that are not tables and not lists of tables (the keys users set)."""
    return [
        (p, v)
        for p, v in walk(doc, [])
        if isinstance(p[-1], str)
        and not isinstance(v, dict)
        and not (isinstance(v, list) and v and all(isinstance(x, dict) for x in v))
    ]


def tables(doc: Doc) -> list[Path_]:
    return [[]] + [p for p, v in walk(doc, []) if isinstance(v, dict)]


def known_paths(doc: Doc) -> set[str]:
    """Every key path of `doc`, named as the loader names them."""
    return {named(doc, p) for p, _ in walk(doc, [])}


def get(doc: Doc, path: Path_) -> Any:
    cur: Any = doc
    for seg in path:
        cur = cur[seg]
    return cur


# Keys whose value is a name or a reference: a mutation there may legitimately surface
# at the entries that refer to it (a renamed node makes a link's `a` dangle).
REFERENCES = {"name", "a", "b", "from", "to", "among", "fixed", "link", "node", "type"}

# Keys that bound a run: removing one may make `duration` the key to blame.
ENDS_A_FLOW = {"bytes", "duration", "stop", "messages"}

UNITS = ["ms", "s", "us", "ns", "Mb", "Kb", "Gb", "b", "B", "KB", "MB", "KiB", "m", "m/s"]


def is_quantity(v: Any) -> bool:
    """A string such as "250ms" or "10Mb": a number followed by a unit."""
    return isinstance(v, str) and bool(v) and (v[0].isdigit() or v[0] in "-.") and not v.isdigit()


def other_type(rng: random.Random, v: Any) -> Any:
    """A value of a different TOML type than `v`."""
    pool: list[Any] = [
        "text",
        "10ms",
        7,
        -3,
        2.5,
        True,
        [1, 2],
        ["a"],
        {"x": 1},
        [],
        {},
        None,  # JSON null: TOML has no such value
    ]
    choices = [x for x in pool if type(x) is not type(v)]
    return rng.choice(choices)


def bad_number(rng: random.Random, v: Any) -> Any:
    """Negative, zero, huge or non-finite versions of a number or quantity."""
    if isinstance(v, bool):
        return rng.choice([0, 1, -1, 2**70])
    if isinstance(v, int | float):
        return rng.choice(
            [0, -1, -(2**63), 2**63, 2**64, 2**200, 1e308, -1e308, 0.0, -0.0, 1e-300, 0.5, -0.5]
        )
    unit = "".join(c for c in str(v) if c.isalpha() or c == "/") or rng.choice(UNITS)
    num = rng.choice(
        [
            "0",
            "-1",
            "-0",
            "1e30",
            "1e308",
            "1e400",
            "99999999999999999999",
            "0.0000000001",
            "nan",
            "inf",
            "-inf",
            "NaN",
            "1e-30",
            "18446744073709551616",
            "3.5e9",
        ]
    )
    return f"{num}{unit}"


def bad_unit(rng: random.Random, v: Any) -> Any:
    digits = "".join(c for c in str(v) if c.isdigit() or c == ".") or "10"
    return rng.choice(
        [
            f"{digits}furlongs",
            f"{digits}",
            f"{digits} ",
            f"{digits}mss",
            f"{digits}M",
            f"{digits}ms ms",
            "ms",
            "",
            " ",
            f"{digits}{rng.choice(UNITS)}x",
            f"{digits}{rng.choice(UNITS)}",
            f"{digits}e",
            f"{digits}..5s",
            f"+{digits}s",
            f"{digits}\u00b5s",
            f"{digits}\nms",
        ]
    )


@dataclass
class Case:
    """One mutated input and what a correct outcome must look like."""

    cls: str
    scenario: str
    doc: Doc
    sets: list[tuple[str, str]] = field(default_factory=list)
    # One of these must appear in an error line; empty: any key path will do.
    names: list[str] = field(default_factory=list)
    must_fail: bool = False
    # Or one of these words must: the message mentions the mutated key while the error
    # sits at a key that clashes with it ("is after the end of the run (duration)").
    mentions: list[str] = field(default_factory=list)
    # The --set key whose value is to blame when the error is at or under it.
    set_key: str | None = None
    # That key as error paths spell it (list entries by name).
    set_named: str | None = None

    def show(self) -> str:
        return (
            f"[{self.cls}] {self.scenario} sets={self.sets!r} expect={self.names!r}\n"
            f"{json.dumps(self.doc, sort_keys=True)[:4000]}"
        )


Mutator = Callable[[random.Random, str, Doc], Case | None]


def unknown_key(rng: random.Random, name: str, doc: Doc) -> Case | None:
    where = rng.choice(tables(doc))
    key = f"fuzz_{rng.randrange(10**6)}"
    get(doc, where)[key] = rng.choice([1, "x", True, [1], {"y": 2}])
    parent = named(doc, where)
    full = f"{parent}.{key}" if parent else key
    # serde names the table ("links.ab: unknown field `k`") or the key itself.
    return Case(
        "unknown_key",
        name,
        doc,
        names=[f"{full}:", f"{parent}: unknown field `{key}`"],
        must_fail=True,
    )


def _leaf_case(cls: str, name: str, doc: Doc, path: Path_, same_entry: bool = False) -> Case:
    key = named(doc, path)
    names = [] if path[-1] in REFERENCES else [f"{key}:"]
    parent = named(doc, path[:-1])
    if names and same_entry and parent:
        # A new value that is valid on its own may clash with a sibling key (a fault
        # time that makes the next action repeat): the error stays in the same entry.
        names.append(f"{SOURCE}: {parent}.")
    if names and same_entry:
        names.extend(entry_mentions(doc, path))
    mentions = [str(path[-1])] if names and same_entry else []
    return Case(cls, name, doc, names=names, mentions=mentions)


def entry_mentions(doc: Doc, path: Path_) -> list[str]:
    """An error at an entry that uses the mutated one names it in quotes ("n0" and
    "n1": one end is wireless, after `nodes.n1.wlan = 0`)."""
    entry = get(doc, path[:-1]).get("name")
    return [f'"{entry}"'] if isinstance(entry, str) else []


def wrong_type(rng: random.Random, name: str, doc: Doc) -> Case | None:
    path, v = rng.choice(leaves(doc))
    case = _leaf_case("wrong_type", name, doc, path)
    get(doc, path[:-1])[path[-1]] = other_type(rng, v)
    return case


def numbers(rng: random.Random, name: str, doc: Doc) -> Case | None:
    cands = [(p, v) for p, v in leaves(doc) if isinstance(v, int | float) or is_quantity(v)]
    if not cands:
        return None
    path, v = rng.choice(cands)
    case = _leaf_case("numbers", name, doc, path, same_entry=True)
    get(doc, path[:-1])[path[-1]] = bad_number(rng, v)
    return case


def units(rng: random.Random, name: str, doc: Doc) -> Case | None:
    cands = [(p, v) for p, v in leaves(doc) if is_quantity(v)]
    if not cands:
        return None
    path, v = rng.choice(cands)
    case = _leaf_case("units", name, doc, path, same_entry=True)
    get(doc, path[:-1])[path[-1]] = bad_unit(rng, v)
    return case


def missing_key(rng: random.Random, name: str, doc: Doc) -> Case | None:
    path, _ = rng.choice(leaves(doc))
    parent = named(doc, path[:-1])
    key = str(path[-1])
    del get(doc, path[:-1])[path[-1]]
    full = f"{parent}.{key}" if parent else key
    # A required key is reported as missing in its table; an optional one is fine.
    # (`{full} =`: an error elsewhere that names the key with the default it now takes.)
    names = [] if key in REFERENCES else [f"missing field `{key}`", f"{full}:", f"{full} ="]
    if names and parent:
        # Its siblings may only make sense with it (`loss.flow` without `loss.drops`).
        names.append(f"{SOURCE}: {parent}.")
    if names:
        names.extend(entry_mentions(doc, path))
    if key in ENDS_A_FLOW:
        # Without it a flow never ends, so the run needs a duration: the error names
        # `duration`, the key that would fix it, and the flow.
        names.append("duration: required because flow(s)")
    mentions = [key] if names else []
    return Case("missing_key", name, doc, names=names, mentions=mentions)


def deleted_table(rng: random.Random, name: str, doc: Doc) -> Case | None:
    cands = [p for p, v in walk(doc, []) if isinstance(v, dict | list)]
    if not cands:
        return None
    path = rng.choice(cands)
    holder = get(doc, path[:-1])
    last = path[-1]
    if isinstance(holder, list) and isinstance(last, int):
        holder.pop(last)
    else:
        del holder[last]
    # Whatever referred to the deleted part may be the one reported.
    return Case("deleted_table", name, doc)


TOML_VALUES = [
    "1",
    "0",
    "-5",
    "1e400",
    "nan",
    "inf",
    "true",
    '"250ms"',
    '"-1s"',
    '"10Mb"',
    '"x"',
    "[1, 2]",
    '["n0"]',
    "{ rate = 0.5 }",
    "{",
    "[1,",
    '"unterminated',
    "",
    "250ms",
    "99999999999999999999999",
    "0.5",
    "1.5",
    '"0.5"',
    "[[1]]",
    "{a = {b = {c = 1}}}",
]


def random_set(rng: random.Random, name: str, doc: Doc) -> Case | None:
    choice = rng.randrange(4)
    shown = None
    if choice == 0:
        path, _ = rng.choice(leaves(doc))
        key = named(doc, path)
        if rng.random() < 0.5:
            # List entries by index, which overrides accept too; errors still name them.
            shown, key = key, ".".join(map(str, path))
    elif choice == 1:
        where = rng.choice(tables(doc))
        parent = named(doc, where)
        key = f"{parent}.fuzz{rng.randrange(100)}" if parent else f"fuzz{rng.randrange(100)}"
    elif choice == 2:
        key = rng.choice(
            [
                "links.nope.delay",
                "flows.9.bytes",
                "nodes",
                "nodes.x",
                "wireless.mac.zz",
                "duration.x",
                "flows",
                "links.0",
                "measure.start.x",
                "a.b.c.d.e",
                "name",
            ]
        )
    else:
        path, _ = rng.choice(leaves(doc))
        key = named(doc, path[:-1]) or "duration"
    value = rng.choice(TOML_VALUES)
    return Case("set", name, doc, sets=[(key, value)], set_key=key, set_named=shown or key)


MUTATORS: dict[str, Mutator] = {
    "unknown_key": unknown_key,
    "wrong_type": wrong_type,
    "numbers": numbers,
    "units": units,
    "missing_key": missing_key,
    "deleted_table": deleted_table,
    "set": random_set,
}


def cases(cls: str) -> list[Case]:
    rng = random.Random(f"{SEED}:{cls}")
    mutate = MUTATORS[cls]
    out: list[Case] = []
    names = sorted(SHIPPED)
    while len(out) < PER_CLASS:
        name = rng.choice(names)
        case = mutate(rng, name, copy.deepcopy(SHIPPED[name]))
        if case is not None:
            out.append(case)
    return out


def resolve(case: Case) -> BaseException | None:
    """The outcome of validating `case` as `sctplab run` does: None if valid."""
    try:
        src = read_scenario(case.doc)
        sets, _ = movement_file_sets(src, list(case.sets))
        _core.resolve(
            src.text,
            is_json=src.is_json,
            source=src.source,
            default_name=src.default_name,
            sets=sets,
        )
    except (_core.ScenarioError, _core.UsageError) as e:
        return e
    return None


def check(case: Case) -> str | None:
    """None when the outcome keeps the promise, else why not."""
    try:
        err = resolve(case)
    except Exception as e:  # anything but the two one-line errors is a bug
        return f"{type(e).__name__} instead of ScenarioError: {e}"
    if err is None:
        return "accepted, but it must be refused" if case.must_fail else None
    line = str(err)
    if "\n" in line or "\r" in line or line != line.strip() or not line:
        return f"not one line: {line!r}"
    if case.set_key is not None:
        key = case.set_key
        at = case.set_named or key
        blamed_file = line.startswith(f"{SOURCE}: {at}:") or line.startswith(f"{SOURCE}: {at}.")
        # A table the override itself created (the file has no such key) is the
        # override's too, even when the error names that table rather than the key.
        created = [
            ".".join(at.split(".")[:n])
            for n in range(1, at.count(".") + 1)
            if ".".join(at.split(".")[:n]) not in known_paths(case.doc)
        ]
        blamed_file = blamed_file or any(line.startswith(f"{SOURCE}: {c}:") for c in created)
        if blamed_file:
            return f"the file is blamed for --set {key}: {line}"
        if not (line.startswith(SOURCE + ": ") or line.startswith(f"--set {key}=")):
            return f"source is neither {SOURCE} nor --set {key}=...: {line}"
        return None
    if not line.startswith(SOURCE + ": "):
        return f"does not start with the source {SOURCE}: {line}"
    named_ok = any(n in line for n in case.names) or any(
        re.search(rf"(?<![\w.]){re.escape(w)}\b", line) for w in case.mentions
    )
    if case.names and not named_ok:
        return f"does not name {case.names} or mention {case.mentions}: {line}"
    return None


@pytest.mark.parametrize("cls", sorted(MUTATORS))
def test_mutated_scenarios_keep_the_one_line_promise(cls: str) -> None:
    failures = []
    for case in cases(cls):
        why = check(case)
        if why is not None:
            failures.append(f"{why}\n  input: {case.show()}")
    assert not failures, f"{len(failures)} of {PER_CLASS} [{cls}] inputs broke the promise:\n" + (
        "\n".join(failures[:5])
    )


def test_every_class_reaches_both_outcomes() -> None:
    """The fuzzer is only useful if each class mixes refusals with valid mutants where
    it can (an unknown key and a value of the wrong type are always refused)."""
    for cls in sorted(MUTATORS):
        outcomes = [resolve(c) is None for c in cases(cls)]
        assert not all(outcomes), f"{cls}: nothing refused"
        if cls not in ("unknown_key", "wrong_type"):
            assert any(outcomes), f"{cls}: nothing valid, the classes are too blunt"


def test_shipped_scenarios_are_valid_as_dicts() -> None:
    # The base of every mutant must itself be valid, or all outcomes are refusals.
    for name, doc in SHIPPED.items():
        assert resolve(Case("none", name, copy.deepcopy(doc))) is None, name


def test_a_sample_of_valid_mutants_runs() -> None:
    """Mutants the loader accepts must also run: one simulated second each."""
    rng = random.Random(f"{SEED}:run")
    ran = 0
    for cls in ("numbers", "units", "wrong_type", "missing_key"):
        valid = [c for c in cases(cls) if resolve(c) is None]
        for case in rng.sample(valid, min(4, len(valid))):
            short = Case(case.cls, case.scenario, case.doc, sets=[("duration", '"1s"')])
            if resolve(short) is not None:
                continue  # e.g. a flow that starts after the first second
            try:
                res = sctplab.run(case.doc, set={"duration": "1s"}, timeout=30)
            except (_core.ScenarioError, _core.UsageError, _core.RunError) as e:
                line = str(e)
                assert "\n" not in line, f"multi-line {line!r}\n  input: {case.show()}"
                # Only the run limits may stop a scenario the loader accepted.
                assert "limit" in line or "packets in flight" in line, (
                    f"{line}\n  input: {case.show()}"
                )
                continue
            assert isinstance(res.summary, dict), case.show()
            assert math.isfinite(res.wall_s)
            ran += 1
    assert ran >= 4


# --- issue 29: values at type bounds, run in a child capped in memory and time ---------
#
# Every numeric key docs/scenario.md documents (its key tables list exactly the schema's
# fields: tests/scenario_docs.rs), set to the bounds of its type (0, 1, the largest
# integers, the largest float, zero and huge quantities), plus the classes of issue 29:
# zero intervals, speeds up to and past light, micrometre and 10^13 m areas. Each case
# that validates is also run for a short simulated time, in a child process whose
# address space is capped: an allocation sized straight from a value aborts the child
# instead of exhausting the machine, and a loop that ignores the run timeout outlives
# the child's watchdog. Either fails the test with the case that did it.

DOCS_MD = SCENARIOS.parent / "docs" / "scenario.md"
BOUND_MEMORY = 3 * 2**30
BOUND_RUN_TIMEOUT_S = 5.0
# Simulated time of each run: long enough for first acks and AODV's first timers.
BOUND_DURATION = "0.3s"

BOUND_VALUES: dict[str, list[Any]] = {
    "integer": [0, 1, 255, 65_535, 2**32 - 1, 2**63 - 1],
    "float": [0.0, 5e-324, 1e308],
    "number or string (size)": [0, 1e308, "0B", "4294967296B", "18446744073709551615B"],
    "string (time)": ["0s", "1ns", "18446744073s", "18446744073.709551615s"],
    "string (rate)": ["0b", "1b", "18446744073709551615b"],
    "string (size)": ["0B", "1B", "4294967295B", "18446744073709551615B"],
    "string (length)": ["0m", "0.000001m", "10000000000000m", "18446744073709.551615m"],
    "string (speed)": ["0m/s", "299792457m/s", "299792458m/s", "18446744073709.551615m/s"],
}


def documented_numeric_keys() -> list[tuple[str, str, str]]:
    """(table, key, type) of every documented key with a numeric type; table is ""
    (top level), a table path (`wireless.aodv`), a list (`links`) or `flows:<type>`."""
    out: list[tuple[str, str, str]] = []
    table: str | None = None
    for line in DOCS_MD.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            m = re.match(r"^#+ `\[\[?([\w.]+)\]\]?`", line)
            f = re.match(r'^#+ `type = "(\w+)"`', line)
            table = (
                m.group(1) if m else f"flows:{f.group(1)}" if f else ""
                if line.startswith("## Top level") else None
            )  # fmt: skip
            continue
        row = re.match(r"^\| `(\w+)` \| ([^|]+) \|", line)
        if table is not None and row and row.group(2).strip() in BOUND_VALUES:
            out.append((table, row.group(1), row.group(2).strip()))
    return out


def bound_targets(doc: Doc, table: str) -> list[Path_]:
    """Where in `doc` the keys of `table` live (tables created when the scenario can
    have them: `wireless.aodv` only when it has `[wireless]`)."""
    if table.startswith("flows:"):
        kind = table.split(":")[1]
        return [["flows", i] for i, f in enumerate(doc.get("flows", [])) if f.get("type") == kind]
    if table in ("nodes", "links", "snoop", "faults", "constellations", "ground_stations"):
        return [[table, i] for i in range(len(doc.get(table, [])))]
    if table == "links.loss":
        return [["links", i, "loss"] for i in range(len(doc.get("links", [])))]
    if table == "links.loss.gilbert":
        return []  # probabilities: the `numbers` class covers them
    parts = table.split(".") if table else []
    if parts and parts[0] in ("wireless", "mobility") and "wireless" not in doc:
        return []
    return [list(parts)]


def set_at(doc: Doc, path: Path_, key: str, value: Any) -> None:
    cur: Any = doc
    for seg in path:
        if isinstance(cur, dict) and seg not in cur:
            cur[seg] = {}
        cur = cur[seg]
    cur[key] = value


def bound_cases() -> list[Case]:
    """Every documented numeric key at every bound of its type, in a scenario that has
    the key's table (a seeded choice among those that do), plus the issue's classes."""
    rng = random.Random(f"{SEED}:bounds")
    out: list[Case] = []
    names = sorted(SHIPPED)
    for table, key, kind in documented_numeric_keys():
        homes = [(n, p) for n in names for p in bound_targets(SHIPPED[n], table)]
        if not homes:
            continue
        for value in BOUND_VALUES[kind]:
            name, path = rng.choice(homes)
            doc = copy.deepcopy(SHIPPED[name])
            set_at(doc, path, key, value)
            out.append(Case(f"bounds:{table}.{key}", name, doc))
    wireless = [n for n in names if "wireless" in SHIPPED[n]]
    extremes: list[list[tuple[Path_, str, Any]]] = [
        [(["wireless"], "width", "10000000000000m"), (["wireless"], "height", "1m")],
        [(["wireless"], "width", "1m"), (["wireless"], "height", "10000000000000m")],
        [(["wireless"], "width", "0.000001m"), (["wireless"], "height", "0.000001m")],
        [(["wireless"], "width", "10000000000000m"), (["wireless"], "height", "10000000000000m")],
        [(["mobility"], "model", "random_waypoint"), (["mobility"], "max_speed", "299792457m/s")],
        [(["mobility"], "model", "random_waypoint"), (["mobility"], "max_speed", "1000000m/s"),
         (["mobility"], "pause", "0s")],
        [(["wireless", "aodv"], "purge_interval", "0s")],
        [(["wireless", "aodv"], "bcast_id_save", "0s")],
        [(["wireless", "aodv"], k, "0s") for k in (
            "active_route_timeout", "my_route_timeout", "rev_route_life", "max_rreq_timeout",
            "node_traversal_time", "broadcast_jitter", "arp_delay", "queue_timeout")],
        [(["wireless", "mac"], k, "0s") for k in ("sifs",)],
        [(["wireless"], "ll_delay", "0s")],
    ]  # fmt: skip
    for name in wireless:
        for sets in extremes:
            doc = copy.deepcopy(SHIPPED[name])
            if "file" in doc.get("mobility", {}) and any(p == ["mobility"] for p, _, _ in sets):
                del doc["mobility"]["file"]
            for path, key, value in sets:
                set_at(doc, path, key, value)
            out.append(Case("bounds:" + ",".join(k for _, k, _ in sets), name, doc))
    return out


# The child: reads cases (JSON lines), validates each and runs the valid ones briefly;
# prints `start <i>` before and `done <i> <outcome>` after each, so the parent knows
# which case a crash or a hang belongs to.
BOUND_CHILD = r"""
import json, sys
import sctplab
from sctplab import _core
for i, line in enumerate(sys.stdin):
    case = json.loads(line)
    print("start", i, flush=True)
    outcome = "ran"
    try:
        sctplab.run(case["doc"], set={"duration": case["duration"]}, timeout=case["timeout"])
    except (_core.ScenarioError, _core.UsageError, _core.RunError) as e:
        text = str(e)
        outcome = "refused" if "\n" not in text and text.strip() == text else "multi-line"
        if outcome == "multi-line":
            print("bad", i, json.dumps(text), flush=True)
    print("done", i, outcome, flush=True)
"""


def _cap_child_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (BOUND_MEMORY, BOUND_MEMORY))


def run_capped(batch: list[Case]) -> tuple[dict[str, int], list[str]]:
    """Runs `batch` in one capped child; returns the outcome counts and the failures."""
    import queue
    import subprocess
    import sys
    import threading

    proc = subprocess.Popen(
        [sys.executable, "-c", BOUND_CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_cap_child_memory,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    for c in batch:
        # A short run, unless the case is about the duration itself.
        own = c.cls == "bounds:.duration"
        duration = c.doc.get("duration", BOUND_DURATION) if own else BOUND_DURATION
        proc.stdin.write(json.dumps({"doc": c.doc, "duration": duration,
                                     "timeout": BOUND_RUN_TIMEOUT_S}) + "\n")  # fmt: skip
    proc.stdin.close()
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for ln in proc.stdout:
            lines.put(ln)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    counts: dict[str, int] = {}
    failures: list[str] = []
    current: int | None = None
    # The run timeout plus the world's build and a margin: a case that outlives it
    # ignores the timeout (a loop inside one event).
    watchdog = BOUND_RUN_TIMEOUT_S + 20.0
    while True:
        try:
            ln = lines.get(timeout=watchdog)
        except queue.Empty:
            proc.kill()
            proc.wait()
            proc.stdout.close()
            proc.stderr.close()
            where = batch[current].show() if current is not None else "(between cases)"
            failures.append(f"hung past the run timeout\n  input: {where}")
            return counts, failures
        if ln is None:
            break
        word, idx, *rest = ln.split(maxsplit=2)
        i = int(idx)
        if word == "start":
            current = i
        elif word == "bad":
            failures.append(f"not one line: {rest[0]}\n  input: {batch[i].show()}")
        elif word == "done":
            counts[rest[0].strip()] = counts.get(rest[0].strip(), 0) + 1
            current = None
    err = proc.stderr.read()
    code = proc.wait()
    proc.stdout.close()
    proc.stderr.close()
    if code != 0:
        where = f"\n  input: {batch[current].show()}" if current is not None else ""
        failures.append(f"child exited {code} (abort or traceback): {err[-1500:]}{where}")
    return counts, failures


def test_values_at_type_bounds_end_cleanly_within_a_memory_cap() -> None:
    cases_ = bound_cases()
    counts, failures = run_capped(cases_)
    assert not failures, f"{len(failures)} of {len(cases_)} bound cases broke the promise:\n" + (
        "\n".join(failures[:5])
    )
    # Both outcomes occur, so the class neither refuses everything nor runs nothing.
    assert counts.get("ran", 0) > 20 and counts.get("refused", 0) > 20, counts


# --- odd Python API arguments, in a memory-capped child (issue 29) ---------------------
#
# Each input is one call of a public function (`run`, `movement`, `sweep`, `load`,
# `plot`) with one or two arguments replaced by an odd value (a deep dict, a path with a
# NUL byte, /dev/zero, a FIFO, an integer of 5000 digits, a string where a list belongs,
# ...), the others valid. The promise: it returns, or raises one of sctplab's errors
# with a one-line message, or a TypeError (an argument of the wrong type). Never another
# exception, a hang, a crash, or memory without bound: the calls run in a child process
# whose address space is capped (RLIMIT_AS) and each has a wall-clock limit.

API_PER_RUN = int(os.environ.get("FUZZ_API_INPUTS", "120"))
# The child's address space: the interpreter, the core and pandas need about 1 GiB of
# mappings; reading /dev/zero whole would need far more.
MEMORY_CAP = 2 * 1024**3
INPUT_WALL_S = 30.0

# A scenario that runs in a few milliseconds (the valid value of `scenario`).
TINY = """
duration = "1s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "1Mb"
delay = "10ms"
[[flows]]
name = "cbr"
type = "cbr"
from = "a"
to = "b"
rate = "100Kb"
"""


def _deep(levels: int, leaf: Any, kind: str) -> Any:
    v = leaf
    for _ in range(levels):
        v = {"a": v} if kind == "dict" else [v]
    return v


# Odd values by name, built in the child (some are large). `tmp` is the child's folder.
ODD: dict[str, Callable[[Path], Any]] = {
    "None": lambda t: None,
    "-5": lambda t: -5,
    "0": lambda t: 0,
    "2**70": lambda t: 2**70,
    "10**5000": lambda t: 10**5000,
    "nan": lambda t: math.nan,
    "inf": lambda t: math.inf,
    "-1.5": lambda t: -1.5,
    "True": lambda t: True,
    "''": lambda t: "",
    "'a\\0b'": lambda t: "a\0b",
    "Path('x\\0y')": lambda t: Path("x\0y"),
    "/dev/zero": lambda t: "/dev/zero",
    "/dev/null": lambda t: "/dev/null",
    "/dev/full": lambda t: "/dev/full",
    "fifo": lambda t: str(t / "fifo"),
    "regular file": lambda t: str(t / "file.txt"),
    "a folder": lambda t: str(t),
    "under a regular file": lambda t: str(t / "file.txt" / "sub"),
    "b'ns2'": lambda t: b"ns2",
    "object()": lambda t: object(),
    "print": lambda t: print,
    "{'a'}": lambda t: {"a"},
    "range(10**12)": lambda t: range(10**12),
    "deep dict": lambda t: _deep(10_000, 1, "dict"),
    "deep list": lambda t: _deep(10_000, 1, "list"),
    "10 MB string": lambda t: "x" * 10_000_000,
    "'ns2'": lambda t: "ns2",
    "'cwnd,rto'": lambda t: "cwnd,rto",
    "'nope'": lambda t: "nope",
    "[1, 2]": lambda t: [1, 2],
    "{'duration': object()}": lambda t: {"duration": object()},
    "{'duration': None}": lambda t: {"duration": None},
    "{'duration': deep list}": lambda t: {"duration": _deep(10_000, 1, "list")},
    "{'duration': 10**5000}": lambda t: {"duration": 10**5000},
    "{'links.ab.loss.rate': nan}": lambda t: {"links.ab.loss.rate": math.nan},
    "{'mobility.file': fifo}": lambda t: {"mobility.file": str(t / "fifo")},
    "{'duration': ['1s', 10**5000]}": lambda t: {"duration": ["1s", 10**5000]},
    "{'duration': range(10**12)}": lambda t: {"duration": range(10**12)},
    "'x = [[[\\n'": lambda t: "x = [[[\n",
    "deep TOML text": lambda t: "x = " + "[" * 30_000 + "]" * 30_000 + "\n",
}

# Each function's parameters and their valid values (`tmp` and the input number give
# a fresh store per sweep).
API: dict[str, dict[str, Callable[[Path, int], Any]]] = {
    "run": {
        "scenario": lambda t, i: TINY,
        "seed": lambda t, i: 1,
        "set": lambda t, i: None,
        "out": lambda t, i: None,
        "pcap": lambda t, i: False,
        "trace": lambda t, i: (),
        "series": lambda t, i: (),
        "progress": lambda t, i: False,
        "timeout": lambda t, i: None,
        "force": lambda t, i: False,
    },
    "movement": {
        "scenario": lambda t, i: TINY,
        "seed": lambda t, i: 1,
        "set": lambda t, i: None,
    },
    "sweep": {
        "scenario": lambda t, i: TINY,
        "grid": lambda t, i: None,
        "seeds": lambda t, i: 1,
        "jobs": lambda t, i: 1,
        "store": lambda t, i: t / f"store-{i}",
        "progress": lambda t, i: False,
        "run_timeout": lambda t, i: None,
    },
    "load": {"store": lambda t, i: t / "store-0", "failed": lambda t, i: False},
    "plot": {"run_dir": lambda t, i: t / "run"},
}


@dataclass(frozen=True)
class ApiCall:
    func: str
    odd: tuple[tuple[str, str], ...]  # (parameter, name of the odd value)

    def show(self) -> str:
        return f"sctplab.{self.func}({', '.join(f'{p}={v}' for p, v in self.odd)})"


def api_calls(seed: int | str, n: int) -> list[ApiCall]:
    rng = random.Random(f"{seed}:api")
    out = []
    odd_names = sorted(ODD)
    for _ in range(n):
        func = rng.choice(sorted(API))
        params = sorted(API[func])
        k = 1 if len(params) == 1 or rng.random() < 0.8 else 2
        chosen = rng.sample(params, k)
        out.append(ApiCall(func, tuple((p, rng.choice(odd_names)) for p in chosen)))
    return out


def api_outcome(call: ApiCall, tmp: Path, i: int) -> str:
    """The class of what `call` did: `ok`, `ScenarioError`, `UsageError`, `RunError`,
    `TypeError`, or `bad: ...` (anything else, or a message that is not one short line)."""
    kwargs = {p: make(tmp, i) for p, make in API[call.func].items()}
    for p, name in call.odd:
        kwargs[p] = ODD[name](tmp)
    fn = getattr(sctplab, call.func)
    try:
        fn(**kwargs)
    except (_core.ScenarioError, _core.UsageError, _core.RunError) as e:
        line = str(e)
        if "\n" in line or not line or len(line) > 1500:
            return f"bad: {type(e).__name__} not one short line ({len(line)} chars)"
        return type(e).__name__
    except TypeError:
        return "TypeError"
    except BaseException as e:  # the promise is broken: say how
        return f"bad: {type(e).__name__}: {' '.join(str(e).split())[:200]}"
    return "ok"


def api_child(first: int, seed: str, n_text: str, tmp: str) -> None:
    """Runs inputs first..n-1 of the campaign `seed`, printing `start i` before each and
    `done i OUTCOME` after it, so the parent can time each and name the one that hangs."""
    import sys

    n = int(n_text)
    folder = Path(tmp)
    # Relative names ("", "nope") are folders and stores of their own: keep them here.
    os.chdir(folder)
    if not (folder / "fifo").exists():
        os.mkfifo(folder / "fifo")
        (folder / "file.txt").write_text("not a scenario\n")
        # A complete run folder and a small store for `plot` and `load`.
        sctplab.run(TINY, out=folder / "run", series="queue", trace="sends")
        sctplab.sweep(TINY, {}, 1, jobs=1, store=folder / "store-0", progress=False)
    calls = api_calls(seed, n)
    for i in range(first, n):
        print(f"start {i}", flush=True)
        outcome = api_outcome(calls[i], folder, i + 1)
        print(f"done {i} {outcome}", flush=True)
    sys.stdout.flush()


def drive(child: Callable[[int], list[str]], n: int, wall_s: float) -> dict[int, str]:
    """Runs `child(first)` (a command) under the memory cap, restarting it after an
    input that hangs past `wall_s` or kills the process; returns each input's outcome."""
    import resource
    import subprocess

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))

    outcomes: dict[int, str] = {}
    first = 0
    while first < n:
        proc = subprocess.Popen(
            child(first), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            preexec_fn=cap,
        )  # fmt: skip
        assert proc.stdout is not None
        try:
            first = _follow(proc, first, n, wall_s, outcomes)
        finally:
            proc.stdout.close()
    return outcomes


def _cpu_s(pid: int) -> str:
    """The CPU time a process has used so far (Linux /proc), as text."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])  # utime, stime
        return f"{ticks / os.sysconf('SC_CLK_TCK'):.1f} s"
    except (OSError, ValueError, IndexError):
        return "unknown"


def _follow(proc: Any, first: int, n: int, wall_s: float, outcomes: dict[int, str]) -> int:
    """Reads one child's lines until it ends or an input outlives `wall_s`; returns the
    input to start the next child at."""
    import select
    import time

    current, deadline = None, time.monotonic() + 120  # set-up, then per input
    buf = ""
    while True:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([proc.stdout], [], [], max(0.0, left))
        if not ready:
            cpu = _cpu_s(proc.pid)  # much less than wall_s: the child was starved
            proc.kill()
            proc.wait()
            i = current if current is not None else first
            outcomes[i] = f"hang: more than {wall_s:g} s ({cpu} of CPU)"
            return i + 1
        chunk = os.read(proc.stdout.fileno(), 65536).decode(errors="replace")
        if not chunk:
            rc = proc.wait()
            i = current if current is not None else first
            if i < n and i not in outcomes:
                outcomes[i] = f"crash: exit status {rc}"
            return i + 1 if current is not None or rc != 0 else n
        buf += chunk
        *lines, buf = buf.split("\n")
        for line in lines:
            word, _, rest = line.partition(" ")
            if word == "start":
                current, deadline = int(rest), time.monotonic() + wall_s
            elif word == "done":
                idx, _, outcome = rest.partition(" ")
                outcomes[int(idx)] = outcome
                current = None
                first = int(idx) + 1
    return first


def test_odd_python_api_arguments_keep_the_promise(tmp_path: Path) -> None:
    n = API_PER_RUN
    calls = api_calls(SEED, n)
    outcomes = drive(child_command("api_child", str(SEED), str(n), str(tmp_path)), n, INPUT_WALL_S)
    allowed = ("ok", "ScenarioError", "UsageError", "RunError", "TypeError")
    broken = [
        f"{outcomes.get(i, 'no outcome')}\n  input: {calls[i].show()}"
        for i in range(n)
        if outcomes.get(i, "bad") not in allowed
    ]
    assert not broken, f"{len(broken)} of {n} odd API calls broke the promise:\n" + "\n".join(
        broken[:10]
    )
    # The class is only useful if it reaches sctplab's errors, not only TypeErrors.
    classes = set(outcomes.values())
    assert {"ScenarioError", "UsageError"} <= classes, classes


def scenario_child(first: int, seed: str, cls: str, n_text: str) -> None:
    """The scenario classes as `api_child` runs the API class (for the long campaign,
    scripts/fuzz_campaign.py): inputs first..n-1 of class `cls` in campaign `seed`, each
    `valid`, `refused` (one line that keeps the promise) or `bad: why`."""
    global SEED
    SEED = int(seed)
    n = int(n_text)
    batch = cases(cls)[:n]
    for i in range(first, min(n, len(batch))):
        print(f"start {i}", flush=True)
        why = check(batch[i])
        if why is not None:
            outcome = "bad: " + " ".join(why.split())[:200]
        else:
            outcome = "valid" if resolve(batch[i]) is None else "refused"
        print(f"done {i} {outcome}", flush=True)


def child_command(function: str, *args: str) -> Callable[[int], list[str]]:
    """`drive`'s command for one of this module's child functions, `function(first,
    *args)`, in a fresh interpreter (`first`: the input it starts or resumes at)."""
    import sys

    tests = str(Path(__file__).resolve().parent)
    code = (
        f"import sys; sys.path.insert(0, {tests!r}); import test_fuzz_scenarios as t; "
        f"t.{function}(int(sys.argv[1]), *sys.argv[2:])"
    )
    return lambda first: [sys.executable, "-c", code, str(first), *args]
