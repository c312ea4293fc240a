"""Reproductions of the seed studies (`sctplab reproduce STUDY|all`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sctplab.reproduce.common import StudyResult

Reproducer = Callable[[Path, bool], StudyResult]


def studies() -> dict[str, Reproducer]:
    from sctplab.reproduce import (
        cmt,
        leo,
        manet,
        messaging,
        multistreaming,
        newreno,
        routing,
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
        "routing": routing.reproduce,
        "leo": leo.reproduce,
        "transports": transports.reproduce,
        "cmt": cmt.reproduce,
    }
