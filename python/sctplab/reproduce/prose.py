"""Numbers and lists in the reports' sentences, and the one verdict word every claim of a
paper gets, with the rule that decides it stated once (in report.md)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Literal

Verdict = Literal["holds", "partly", "differs"]

VERDICT_RULE = (
    "Every claim of a paper gets one verdict. **Holds**: ours shows the effect the paper "
    "states, in its direction, at every point the claim covers, and where the paper prints "
    "a number, ours is within a quarter of it (relative) or the paper's number lies in our "
    "95 % interval. **Partly**: the direction is the paper's but the size is outside that "
    "range, or the effect is there at some of the claim's points and not at others. "
    "**Differs**: ours does not show the effect, or shows the opposite. Where runs scatter "
    "(seed 004's movement scenarios), an effect counts as shown when its test (paired t, "
    "or the slope's) gives p < 0.05."
)


def verdict(word: Verdict) -> str:
    return f"Verdict: **{word}**."


def by_number(ours: float, paper: float, ci: float | None = None) -> Verdict:
    """VERDICT_RULE for a number the paper prints, when the claim is that effect's size."""
    if ci is not None and abs(ours - paper) <= ci:
        return "holds"
    if abs(ours - paper) <= 0.25 * abs(paper):
        return "holds"
    return "partly" if ours * paper > 0 else "differs"


def by_count(hits: int, total: int) -> Verdict:
    """VERDICT_RULE for a claim about several points: holds at all, some or none."""
    return "holds" if hits == total else ("partly" if hits else "differs")


def join(items: Iterable[object]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    xs = [str(x) for x in items]
    if len(xs) <= 1:
        return "".join(xs)
    return ", ".join(xs[:-1]) + " and " + xs[-1]


def pairs(values: Mapping[str, float], digits: int = 0, unit: str = "") -> str:
    """'tcp-sack 407, sctp-original 399 and ...' from a mapping, in its order."""
    return join(f"{k} {v:,.{digits}f}{unit}" for k, v in values.items())


def num(v: float, digits: int = 0) -> str:
    """A number for people: thousands separated, fixed decimals."""
    return f"{v:,.{digits}f}"


def sig3(v: float) -> str:
    """About three significant digits without exponents: 1,210, 175, 64.3, 0.0413."""
    if v == 0 or abs(v) >= 100:
        return f"{v:,.0f}"
    digits = max(0, 2 - math.floor(math.log10(abs(v))))
    return f"{v:.{digits}f}"
