"""The SGP4 oracle file of crates/sctplab-core/src/sat/tle.rs is what the `sgp4` Python
package (Vallado's reference SGP4) answers: the Rust test compares the crate's positions
with this file, so together they compare the crate with the package."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "crates/sctplab-core/src/sat/testdata/sgp4_oracle.json"


def _oracle() -> dict[str, Any]:
    spec = importlib.util.spec_from_file_location("sgp4_oracle", ROOT / "scripts/sgp4_oracle.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result: dict[str, Any] = module.oracle()
    return result


def test_fixture_is_the_packages_answer() -> None:
    stored = json.loads(FIXTURE.read_text())
    fresh = _oracle()
    assert [s["line1"] for s in stored["sets"]] == [s["line1"] for s in fresh["sets"]]
    for old, new in zip(stored["sets"], fresh["sets"], strict=True):
        assert old["line2"] == new["line2"]
        assert math.isclose(old["gmst_epoch"], new["gmst_epoch"], abs_tol=1e-12)
        for a, b in zip(old["states"], new["states"], strict=True):
            assert a["minutes"] == b["minutes"]
            # Within a millimetre of the package's position (km).
            assert math.dist(a["teme_km"], b["teme_km"]) < 1e-6
