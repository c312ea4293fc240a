"""RED on seed 000's dumbbell, sctplab against ns-2.35's Queue/RED.

Usage: python bench/red_vs_ns2.py [SEEDS] [DURATION_S]

The RED rows of `sctplab validate ns2` (sctplab.validation.red: the scenario, and the
ns-2 side, python/sctplab/ns2/red_dumbbell.tcl) with a chosen seed count and duration;
prints, per metric, both means with 95 % Student-t half-widths: the packets N2 sent on
the bottleneck, the packets dropped there (RED's early and forced drops), and the
time-average of the packets waiting (ns-2: the queue monitor's integrator; sctplab: the
`queue` series sampled every 10 ms). The two simulators draw different random numbers,
so only the means can be compared.
"""

from __future__ import annotations

import sys

from sctplab.stats import mean_ci
from sctplab.validation.red import ns2, ours


def main() -> None:
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    duration = float(sys.argv[2]) if len(sys.argv) > 2 else 300.0
    theirs = [ns2(s, duration) for s in range(1, seeds + 1)]
    mine = [ours(s, duration) for s in range(1, seeds + 1)]
    print(f"RED, seed 000 dumbbell, {duration:g} s, {seeds} seeds: ns-2.35 | sctplab")
    print("(mean +- 95 % half-width)")
    for i, metric in enumerate(["packets sent on N2->N3", "drops at N2", "mean packets waiting"]):
        tm, tci, _ = mean_ci(x[i] for x in theirs)
        mm, mci, _ = mean_ci(x[i] for x in mine)
        within = abs(mm - tm) <= tci + mci
        print(
            f"{metric:24s} {tm:10.4g} +- {tci:<8.3g} | {mm:10.4g} +- {mci:<8.3g}"
            f" difference {100 * (mm - tm) / tm:+.1f} % {'(within)' if within else '(outside)'}"
        )


if __name__ == "__main__":
    main()
