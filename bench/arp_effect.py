"""What ARP (`[wireless] arp`) changes in seed 004's scenario, for docs/models/wireless.md.

    python bench/arp_effect.py runs OUT            # manet-tcp/-sctp seeds 1-3, 200 s, on/off
    python bench/arp_effect.py validate OUT        # validate_wireless quick rows, on/off

`runs` prints, per run, the transport flow's goodput and retransmissions with ARP on and
off and the ARP counters summed over the nodes. `validate` computes the wireless rows of
`sctplab validate ns2 --quick` twice, with our side's ARP on and off; ns-2.35 (which always
has ARP) runs once and both use its results.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import sctplab.validation.wireless as vw
from sctplab.runner import run
from sctplab.scenario_paths import scenarios_dir


def runs(out: Path) -> None:
    for transport in ("tcp", "sctp"):
        for seed in (1, 2, 3):
            row = []
            for arp in (True, False):
                s = run(
                    scenarios_dir() / f"manet-{transport}.toml",
                    seed=seed,
                    set={
                        "duration": "200s",
                        "measure.end": "200s",
                        "flows.transport.stop": "200s",
                        "wireless.arp": arp,
                    },
                ).summary
                f = s["flows"]["transport"]
                arp_counts: dict[str, int] = {}
                for n in s["nodes"].values():
                    for k, v in n["arp"].items():
                        arp_counts[k] = arp_counts.get(k, 0) + v
                row.append((f["goodput_bps"] / 1e3, f["retransmissions"], arp_counts))
                (out / f"{transport}-{seed}-{'on' if arp else 'off'}.json").write_text(
                    json.dumps(s, indent=1)
                )
            (g1, r1, a), (g0, r0, _) = row
            print(
                f"{transport} seed {seed}: goodput {g1:.1f} / {g0:.1f} kb/s, "
                f"retransmissions {r1} / {r0}, requests {a['requests_sent']}, "
                f"replies {a['replies_sent']}, replaced {a['replaced']}, "
                f"given up {a['gave_up']}",
                flush=True,
            )


def validate(out: Path) -> None:
    arp = {"on": True}
    plain_run = run

    def run_arp(sc: Any, seed: int, set: dict[str, Any] | None = None) -> Any:
        if isinstance(sc, dict):
            sc = json.loads(json.dumps(sc))
            sc["wireless"]["arp"] = arp["on"]
            return plain_run(sc, seed=seed)
        return plain_run(sc, seed=seed, set={**(set or {}), "wireless.arp": arp["on"]})

    cache: dict[Any, Any] = {}
    chain_ns2 = vw.ns2_chain_throughput
    manet_ns2 = vw.manet_ns2

    def chain_once(hops: int, seed: int, duration_s: float, tmp: Path) -> float:
        key = ("chain", hops, seed, duration_s)
        if key not in cache:
            cache[key] = chain_ns2(hops, seed, duration_s, tmp)
        return float(cache[key])

    def manet_once(
        transport: str,
        seed: int,
        movement_file: Path,
        pairs: list[tuple[int, int, float]],
        stop_s: float,
        tmp: Path,
    ) -> Any:
        key = ("manet", transport, seed, repr(pairs), stop_s)
        if key not in cache:
            cache[key] = manet_ns2(transport, seed, movement_file, pairs, stop_s, tmp)
        return cache[key]

    # validate_wireless calls the runner's `run` under that name.
    vw.__dict__["run"] = run_arp
    vw.ns2_chain_throughput = chain_once
    vw.manet_ns2 = manet_once
    for mode in ("on", "off"):
        arp["on"] = mode == "on"
        for c in vw.wireless(out, quick=True):
            print(
                f"ARP {mode}: {c.metric} [{c.scenario}] ns-2 {c.ns2_mean:.1f}, "
                f"ours {c.ours:.1f} ({(c.ours / c.ns2_mean - 1) * 100:+.1f} %), "
                f"tolerance {c.tolerance:.1f}",
                flush=True,
            )


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("runs", "validate"):
        sys.exit(__doc__)
    where = Path(sys.argv[2])
    where.mkdir(parents=True, exist_ok=True)
    (runs if sys.argv[1] == "runs" else validate)(where)
