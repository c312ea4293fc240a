"""A long fuzz campaign: the seeded scenario fuzzer's classes and its odd-Python-API class
(tests/test_fuzz_scenarios.py) over many FUZZ_SEEDs, every input in a child process
whose address space is capped (RLIMIT_AS) and with a wall-clock limit per input.

    nice -n 19 python scripts/fuzz_campaign.py --seeds 1-20 --budget-s 900

Prints one line per (seed, class) and, at the end, the inputs tried and their outcomes
by class: `valid` / `refused` (a one-line error that keeps the promise), `ok` /
`ScenarioError` / `UsageError` / `RunError` / `TypeError` for API calls, and the broken
ones: `bad` (another exception, a message that is not one line, the wrong key or source
blamed), `hang` (past the wall limit) and `crash` (the child died, e.g. on the memory
cap). Exit status 1 if any input was broken. The numbers in docs/robustness.md come from
this script.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"
KEPT = {"valid", "refused", "ok", "ScenarioError", "UsageError", "RunError", "TypeError"}


def _seeds(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="1-10", help="FUZZ_SEED range, e.g. 1-20")
    parser.add_argument("--per-class", type=int, default=600, help="scenario inputs per class")
    parser.add_argument("--api-inputs", type=int, default=200, help="odd API calls per seed")
    parser.add_argument("--wall-s", type=float, default=30.0, help="wall limit per input")
    parser.add_argument("--memory-gib", type=float, default=2.0, help="RLIMIT_AS of a child")
    parser.add_argument("--budget-s", type=float, default=900.0, help="start no seed after")
    parser.add_argument("--json", type=Path, help="also write the counts here")
    args = parser.parse_args()

    sys.path.insert(0, str(TESTS))
    import test_fuzz_scenarios as fz

    fz.MEMORY_CAP = int(args.memory_gib * 1024**3)
    counts: dict[str, Counter[str]] = {}
    broken: list[str] = []
    t0 = time.monotonic()
    done_seeds = []
    for seed in _seeds(args.seeds):
        if time.monotonic() - t0 > args.budget_s:
            break
        for cls in sorted(fz.MUTATORS):
            cmd = fz.child_command("scenario_child", str(seed), cls, str(args.per_class))
            out = fz.drive(cmd, args.per_class, args.wall_s)
            _tally(counts, broken, cls, seed, out)
        with tempfile.TemporaryDirectory(prefix="sctplab-fuzz-api-") as tmp:
            n = args.api_inputs
            cmd = fz.child_command("api_child", str(seed), str(n), tmp)
            out = fz.drive(cmd, n, args.wall_s)
            calls = fz.api_calls(seed, n)
            _tally(counts, broken, "api", seed, out, [c.show() for c in calls])
        done_seeds.append(seed)
    wall = time.monotonic() - t0
    total = sum(sum(c.values()) for c in counts.values())
    print(
        f"\nseeds {done_seeds[0] if done_seeds else '-'}..{done_seeds[-1] if done_seeds else '-'}"
        f" ({len(done_seeds)}), {total} inputs in {wall:.0f} s, memory cap "
        f"{args.memory_gib:g} GiB, wall limit {args.wall_s:g} s per input"
    )
    for cls, c in sorted(counts.items()):
        print(
            f"  {cls:14} {sum(c.values()):6}  "
            + ", ".join(f"{k} {v}" for k, v in sorted(c.items()))
        )
    print(f"broken: {len(broken)}")
    for line in broken[:20]:
        print("  " + line)
    if args.json is not None:
        summary = {
            "seeds": done_seeds,
            "inputs": total,
            "wall_s": round(wall),
            "memory_gib": args.memory_gib,
            "wall_limit_s": args.wall_s,
            "counts": {k: dict(v) for k, v in counts.items()},
            "broken": broken,
        }
        args.json.write_text(json.dumps(summary, indent=2) + "\n")
    return 1 if broken else 0


def _tally(
    counts: dict[str, Counter[str]],
    broken: list[str],
    cls: str,
    seed: int,
    outcomes: dict[int, str],
    shown: list[str] | None = None,
) -> None:
    here: Counter[str] = Counter()
    for i, outcome in sorted(outcomes.items()):
        kind = outcome.split(":")[0]
        here[kind] += 1
        if kind not in KEPT:
            what = shown[i] if shown is not None else f"input {i}"
            broken.append(f"seed {seed} {cls} {what}: {outcome}")
    counts.setdefault(cls, Counter()).update(here)
    line = ", ".join(f"{k} {v}" for k, v in sorted(here.items()))
    print(f"seed {seed} {cls}: {line}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
