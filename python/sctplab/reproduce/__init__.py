"""Reproductions of the seed studies (`sctplab reproduce STUDY|all`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sctplab.reproduce.common import StudyResult

Reproducer = Callable[[Path, bool], StudyResult]


def studies() -> dict[str, Reproducer]:
    from sctplab.reproduce import (
        manet,
        messaging,
        multistreaming,
        newreno,
        satellite,
        snoop,
        transports,
    )

    return {
        "satellite": satellite.reproduce,
        "multistreaming": multistreaming.reproduce,
        "newreno": newreno.reproduce,
        "snoop": snoop.reproduce,
        "manet": manet.reproduce,
        "messaging": messaging.reproduce,
        "transports": transports.reproduce,
    }
