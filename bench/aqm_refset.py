"""Writes the AQM reference scenarios of bench/aqm_refcheck.sh into DIR.

Usage: python3 bench/aqm_refset.py DIR

A 10 Mb/s dumbbell (as tests' bufferbloat case) whose bottleneck runs each discipline at
its defaults and with other settings (ECN, RED in packets without gentle or wait_,
CoDel's short target, FQ-CoDel with 4 queues and a small quantum, PIE's short update),
under three limits (1000 packets, 40 packets, 30 KB) and two loads (1 TCP + 1 SCTP flow,
or 6 + 3, beside a CBR flow), with and without ECN on the flows: drops, marks, head
drops, FQ-CoDel's overflow and lingering flow lists all occur. A change meant to keep
results (a speed step) must leave every summary byte-identical.
"""

from __future__ import annotations

import sys
from pathlib import Path

AQMS = {
    "red": 'aqm = { kind = "red" }',
    "red_ecn": 'aqm = { kind = "red", ecn = true }',
    "red_pk": 'aqm = { kind = "red", queue_in_bytes = false, bytes = false, gentle = false, '
    "wait = false }",
    "codel": 'aqm = { kind = "codel" }',
    "codel_ecn": 'aqm = { kind = "codel", ecn = true }',
    "codel_t0": 'aqm = { kind = "codel", target = "1ms", interval = "20ms" }',
    "fq": 'aqm = { kind = "fq_codel" }',
    "fq_ecn": 'aqm = { kind = "fq_codel", ecn = true }',
    "fq16": 'aqm = { kind = "fq_codel", flows = 4, quantum = "300B" }',
    "pie": 'aqm = { kind = "pie" }',
    "pie_ecn": 'aqm = { kind = "pie", ecn = true }',
    "pie_fast": 'aqm = { kind = "pie", target = "5ms", t_update = "5ms" }',
}


def link(name: str, a: str, b: str, bw: str, delay: str, extra: str = "") -> str:
    return (
        f'[[links]]\nname = "{name}"\na = "{a}"\nb = "{b}"\nbandwidth = "{bw}"\n'
        f'delay = "{delay}"\n{extra}'
    )


def topology(aqm: str, queue: int, queue_bytes: str | None) -> str:
    nodes = "".join(f'[[nodes]]\nname = "{n}"\n' for n in ("a", "r1", "r2", "b"))
    qb = f'queue_bytes = "{queue_bytes}"\n' if queue_bytes else ""
    return (
        nodes
        + link("l1", "a", "r1", "100Mb", "1ms", "queue = 1000\n")
        + link("bn", "r1", "r2", "10Mb", "20ms", f"queue = {queue}\n{qb}{aqm}\n")
        + link("l3", "r2", "b", "100Mb", "1ms", "queue = 1000\n")
    )


def flows(n_tcp: int, n_sctp: int, ecn: str) -> str:
    s = ""
    for i in range(n_tcp):
        s += (
            f'[[flows]]\nname = "t{i}"\ntype = "tcp"\nvariant = "sack"\nfrom = "a"\nto = "b"\n'
            f'window = 1000\necn = {ecn}\nstart = "{0.1 * i:.1f}s"\n'
        )
    for i in range(n_sctp):
        s += (
            f'[[flows]]\nname = "s{i}"\ntype = "sctp"\nvariant = "newreno"\nfrom = "a"\n'
            f'to = "b"\necn = {ecn}\nstart = "{0.05 + 0.1 * i:.2f}s"\n'
        )
    return s + (
        '[[flows]]\nname = "u0"\ntype = "cbr"\nfrom = "a"\nto = "b"\nrate = "1Mb"\n'
        'packet_size = "500B"\njitter = true\n'
    )


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name, aqm in AQMS.items():
        for queue, queue_bytes, tag in [
            (1000, None, "big"),
            (40, None, "small"),
            (1000, "30KB", "bytes"),
        ]:
            for ecn in ("false", "true"):
                for n_tcp, n_sctp in ((1, 1), (6, 3)):
                    text = 'name = "x"\nduration = "15s"\n[measure]\nstart = "2s"\n'
                    text += topology(aqm, queue, queue_bytes) + flows(n_tcp, n_sctp, ecn)
                    (out / f"{name}-{tag}-{ecn}-{n_tcp}.toml").write_text(text)


if __name__ == "__main__":
    main()
