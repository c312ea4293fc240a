"""The lines of an ns-2 setdest movement file (what `sctplab movement` writes) that the
studies read: each node's `set X_` / `set Y_` start and its `setdest X Y v` commands."""

from __future__ import annotations

# (time s, node, x m, y m, speed m/s) of one `$ns_ at t "$node_(n) setdest x y v"` line.
Command = tuple[float, int, float, float, float]


def read_setdest(text: str) -> tuple[dict[int, tuple[float, float]], list[Command]]:
    """Start positions per node (a coordinate not set is 0), and the setdest commands in
    file order."""
    start: dict[int, list[float]] = {}
    cmds: list[Command] = []
    for line in text.splitlines():
        parts = line.replace('"', " ").split()
        if len(parts) == 4 and parts[0].startswith("$node_(") and parts[2] in ("X_", "Y_"):
            n = int(parts[0][7:-1])
            start.setdefault(n, [0.0, 0.0])[0 if parts[2] == "X_" else 1] = float(parts[3])
        elif len(parts) == 8 and parts[4] == "setdest":
            n = int(parts[3][7:-1])
            cmds.append((float(parts[2]), n, float(parts[5]), float(parts[6]), float(parts[7])))
    return {n: (p[0], p[1]) for n, p in start.items()}, cmds
