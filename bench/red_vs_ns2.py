"""RED on seed 000's dumbbell, sctplab against ns-2.35's Queue/RED.

Usage: python bench/red_vs_ns2.py [SEEDS] [DURATION_S]

Runs bench/ns2/red_dumbbell.tcl in ns-2.35 and bench/red-dumbbell.toml in sctplab with
seeds 1..SEEDS and prints, per metric, both means with 95 % Student-t half-widths: the
packets N2 sent on the bottleneck, the packets dropped there (RED's early and forced
drops), and the time-average of the packets waiting (ns-2: the queue monitor's
integrator; sctplab: the `queue` series sampled every 10 ms). The two simulators draw
different random numbers, so only the means can be compared.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from sctplab.runner import run
from sctplab.stats import mean_ci

HERE = Path(__file__).resolve().parent


def ns2(seed: int, duration: float) -> tuple[float, float, float]:
    out = subprocess.run(
        ["ns", str(HERE / "ns2" / "red_dumbbell.tcl"), str(seed), str(duration)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return float(out[0]), float(out[1]), float(out[2])


def ours(seed: int, duration: float) -> tuple[float, float, float]:
    r = run(HERE / "red-dumbbell.toml", seed=seed, set={"duration": f"{duration}s"}, series="queue")
    link = r.summary["links"]["n2->n3"]
    s = r.series
    q = s[(s["variable"] == "queue") & (s["entity"] == "n2->n3")]["value"]
    return (
        float(link["tx_packets"]),
        float(link["queue_drops"] + link["aqm_drops"]),
        float(q.mean()),
    )


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
