"""Runs the PGO training list through an instrumented build of the extension.

Run as a script in its own process (`python train.py EXTENSION TRAINING_LIST`): the
profile runtime writes its counters when the process exits. Only the standard library is
used, as the build environment has none of sctplab's dependencies.
"""

from __future__ import annotations

import importlib.util
import shlex
import sys
from pathlib import Path
from types import ModuleType


def load_extension(path: Path) -> ModuleType:
    """Imports the `sctplab._core` shared library at `path` without the package."""
    spec = importlib.util.spec_from_file_location("sctplab._core", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path}: not a loadable extension")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def parse_runs(text: str) -> list[tuple[str, int, list[tuple[str, str]]]]:
    """The runs of a training list: (scenario path, seed, [(key, value)] overrides)."""
    runs = []
    for n, line in enumerate(text.splitlines(), 1):
        words = shlex.split(line, comments=True)
        if not words:
            continue
        path, opts = words[0], words[1:]
        if len(opts) % 2:
            raise ValueError(f"line {n}: an option without a value")
        seed, sets = 1, []
        for opt, value in zip(opts[::2], opts[1::2], strict=True):
            if opt == "--seed":
                seed = int(value)
            elif opt == "--set" and "=" in value:
                key, _, val = value.partition("=")
                sets.append((key, val))
            else:
                raise ValueError(f"line {n}: unknown option {opt} {value}")
        runs.append((path, seed, sets))
    return runs


def main(argv: list[str]) -> int:
    core = load_extension(Path(argv[0]))
    for path, seed, sets in parse_runs(Path(argv[1]).read_text()):
        # A missing scenario fails the training (and PGO with it): a profile of a
        # partial training would mark the models it skipped as cold.
        scenario = Path(path)
        core.run(
            scenario.read_text(), source=path, default_name=scenario.stem, sets=sets, seed=seed
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
