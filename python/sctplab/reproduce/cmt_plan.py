"""The CMT study's plan (issue 35 item 7): its set-ups on scenarios/cmt.toml's two
disjoint paths, its series (ours and ns-2.35's Agent/SCTP/CMT), the points of each item
and the overrides or cmt.tcl arguments each point runs with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# ns-2.35's eCmtRtxPolicy_ values (sctp-cmt.h's CmtRtxPolicy_E) by our `cmt_rtx_policy`.
NS2_POLICY = {"asap": 0, "same": 1, "ssthresh": 2, "lossrate": 3, "cwnd": 4}
POLICIES = ["same", "asap", "cwnd", "ssthresh", "lossrate"]


@dataclass(frozen=True)
class Config:
    """One series: which simulator and which flow keys (or cmt.tcl agent)."""

    name: str
    ns2: bool
    cmt: bool
    policy: str = "cwnd"
    split_nrsack: bool = False
    unordered: bool = False


CONFIGS = [
    Config("sp", ns2=False, cmt=False),
    *[Config(f"cmt-{p}", ns2=False, cmt=True, policy=p) for p in POLICIES],
    Config("cmt-bs-nrsack", ns2=False, cmt=True, split_nrsack=True),
    Config("cmt-bs-nrsack-unordered", ns2=False, cmt=True, split_nrsack=True, unordered=True),
    Config("ns2-sp", ns2=True, cmt=False),
    *[Config(f"ns2-cmt-{p}", ns2=True, cmt=True, policy=p) for p in POLICIES],
]
SERIES = [c.name for c in CONFIGS]
BY_NAME = {c.name: c for c in CONFIGS}


@dataclass(frozen=True)
class Setup:
    """Path B's bottleneck (rb -> h2:eth1): its one-way delay and random loss."""

    name: str
    item: str
    delay_b_ms: int
    loss_b: float
    title: str


EQUAL = Setup("equal", "goodput_vs_buffer", 20, 0.0, "equal delays, no random loss")
UNEQUAL = Setup(
    "unequal", "goodput_vs_buffer_unequal", 200, 0.0, "path B's bottleneck 200 ms, no loss"
)
LOSSY = Setup("loss", "goodput_vs_buffer_loss", 20, 0.01, "equal delays, 1 % loss on path B")
BUFFER_SETUPS = [EQUAL, UNEQUAL, LOSSY]
LOSS_ITEM = "goodput_vs_loss"

# Receive buffers (bytes): from well below one path's bandwidth-delay product plus its
# queue (2 Mb/s x 80 ms + 50 packets, about 95 kB) to above both paths' together.
BUFFERS = [16384, 32768, 65536, 131072, 262144]
QUICK_BUFFERS = [32768, 131072]
# Loss on path B for `goodput_vs_loss` (equal delays, LOSS_BUFFER); 0 is the equal
# set-up's point at that buffer.
LOSSES = [0.0, 0.005, 0.01, 0.02, 0.05]
QUICK_LOSSES = [0.0, 0.02]
LOSS_BUFFER = 131072
FULL_SEEDS = 5
QUICK_SEEDS = 2
FULL_END_S = 61.0  # as the validation rows: the window 6 s .. end
QUICK_END_S = 31.0
START_S = 1.0
WINDOW_START_S = 6.0
BOTTLENECK_BPS = 2e6
PAYLOAD = 1452  # user bytes per DATA chunk (1500-byte packets)


@dataclass(frozen=True)
class Key:
    """One run: a series on a path set-up with a receive buffer and a seed."""

    config: str
    delay_b_ms: int
    loss_b: float
    buffer: int
    seed: int


@dataclass(frozen=True)
class Grid:
    buffers: list[int]
    losses: list[float]
    seeds: int
    end_s: float
    ns2: bool = True  # whether ns-2.35's series run (`ns` on PATH)

    @property
    def series(self) -> list[str]:
        return [c.name for c in CONFIGS if self.ns2 or not c.ns2]


def grid(quick: bool, ns2: bool = True) -> Grid:
    if quick:
        return Grid(QUICK_BUFFERS, QUICK_LOSSES, QUICK_SEEDS, QUICK_END_S, ns2)
    return Grid(BUFFERS, LOSSES, FULL_SEEDS, FULL_END_S, ns2)


def plan(g: Grid) -> list[Key]:
    """Every run once (the loss item's point at loss 0 is the equal set-up's)."""
    keys: dict[Key, None] = {}
    for seed in range(1, g.seeds + 1):
        for c in g.series:
            for s in BUFFER_SETUPS:
                for b in g.buffers:
                    keys[Key(c, s.delay_b_ms, s.loss_b, b, seed)] = None
            for loss in g.losses:
                keys[Key(c, EQUAL.delay_b_ms, loss, LOSS_BUFFER, seed)] = None
    return list(keys)


def ours_sets(key: Key, end_s: float) -> dict[str, Any]:
    """scenarios/cmt.toml's overrides for one of our runs."""
    c = BY_NAME[key.config]
    f = "flows.sctp1."
    sets: dict[str, Any] = {
        "duration": f"{end_s:g}s",
        "measure.start": f"{WINDOW_START_S:g}s",
        f + "cmt": c.cmt,
        f + "receive_buffer": f"{key.buffer}B",
    }
    if c.cmt:
        sets[f + "cmt_rtx_policy"] = c.policy
    if c.split_nrsack:
        # Sender splitting needs a send buffer: the receive buffer's size.
        sets[f + "buffer_splitting"] = "both"
        sets[f + "nr_sack"] = True
        sets[f + "send_buffer"] = f"{key.buffer}B"
    if c.unordered:
        sets[f + "unordered"] = True
    if key.delay_b_ms != EQUAL.delay_b_ms:
        sets["links.rb_h2.delay"] = f"{key.delay_b_ms}ms"
    if key.loss_b > 0:
        sets["links.rb_h2.loss.rate"] = key.loss_b
    return sets


def ns2_extra(key: Key) -> tuple[int | str, ...]:
    """cmt.tcl's optional SWND NRSACK UNORDERED RWND DELAYB POLICY for an ns-2 run."""
    c = BY_NAME[key.config]
    return (0, 0, 0, key.buffer, f"{key.delay_b_ms}ms", NS2_POLICY[c.policy])
