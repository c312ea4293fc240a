"""Where the page draws nodes that have no position of their own (wired topologies): a
force-directed layout (Fruchterman and Reingold 1991), deterministic: the same
topology always gets the same picture."""

from __future__ import annotations

import math

import numpy as np

ITERATIONS = 300


def layout(n: int, edges: list[tuple[int, int]]) -> list[tuple[float, float]]:
    """Positions of `n` nodes joined by `edges`, fitted into the unit square (the
    longer side spans [0, 1], the shorter one is centred). Nodes start on a circle in
    depth-first order; edges pull, every pair pushes, and the steps shrink linearly."""
    if n == 0:
        return []
    if n == 1:
        return [(0.5, 0.5)]
    # Around the circle in depth-first order: a chain or a ring starts untangled.
    slot = np.empty(n)
    for i, node in enumerate(_depth_first(n, edges)):
        slot[node] = i
    angle = 2 * math.pi * slot / n
    pos = np.column_stack([np.cos(angle), np.sin(angle)])
    k = 1.0 / math.sqrt(n)
    pairs = np.array([(a, b) for a, b in edges if a != b and 0 <= a < n and 0 <= b < n])
    temp = 0.2
    for step in range(ITERATIONS):
        delta = pos[:, None, :] - pos[None, :, :]
        dist = np.maximum(np.linalg.norm(delta, axis=2), 1e-9)
        # Repulsion k^2/d between every pair (a node does not push itself).
        force = (delta / dist[:, :, None] * (k * k / dist)[:, :, None]).sum(axis=1)
        if len(pairs):
            d = pos[pairs[:, 0]] - pos[pairs[:, 1]]
            length = np.maximum(np.linalg.norm(d, axis=1), 1e-9)
            pull = d * (length / k)[:, None]
            np.add.at(force, pairs[:, 0], -pull)
            np.add.at(force, pairs[:, 1], pull)
        size = np.maximum(np.linalg.norm(force, axis=1), 1e-9)
        t = temp * (1 - step / ITERATIONS)
        pos += force / size[:, None] * np.minimum(size, t)[:, None]
    lo, hi = pos.min(axis=0), pos.max(axis=0)
    span = float(max(hi[0] - lo[0], hi[1] - lo[1], 1e-9))
    pos = (pos - lo) / span
    pos += (1 - (hi - lo) / span) / 2
    return [(float(x), float(y)) for x, y in pos]


def _depth_first(n: int, edges: list[tuple[int, int]]) -> list[int]:
    """Every node once: depth first from node 0, neighbours in number order, then the
    other components from their lowest node."""
    near: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        if a != b and 0 <= a < n and 0 <= b < n:
            near[a].append(b)
            near[b].append(a)
    seen = [False] * n
    order: list[int] = []
    for root in range(n):
        stack = [root]
        while stack:
            v = stack.pop()
            if seen[v]:
                continue
            seen[v] = True
            order.append(v)
            stack.extend(sorted(near[v], reverse=True))
    return order
