"""`sctplab animate` and `sctplab.animate` (issue 41) without a browser: the page is one
self-contained file built from the run's anim.jsonl; bad input is one line and exit 2.
tests/test_animate_browser.py plays the page in headless Chromium."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import sctplab
from sctplab.animate.layout import layout
from sctplab.animate.page import page_data, render
from sctplab.animate.trace import AnimData, read

# A static wired chain a - b - c - d, one CBR flow a -> d (1000-byte payload, 80 kb/s:
# 10 packets a second), 3 s.
CHAIN = """
name = "chain"
duration = "3s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[nodes]]
name = "c"
[[nodes]]
name = "d"
[[links]]
name = "ab"
a = "a"
b = "b"
bandwidth = "1Mb"
delay = "100ms"
[[links]]
name = "bc"
a = "b"
b = "c"
bandwidth = "1Mb"
delay = "100ms"
[[links]]
name = "cd"
a = "c"
b = "d"
bandwidth = "1Mb"
delay = "100ms"
[[flows]]
name = "cbr"
type = "cbr"
from = "a"
to = "d"
rate = "80Kb"
packet_size = "1000B"
"""


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sctplab.cli", *args], capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def chain_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("chain") / "run"
    sctplab.run(CHAIN, out=out, trace="anim")
    return out


def test_anim_trace_leaves_the_summary_alone(chain_run: Path, tmp_path: Path) -> None:
    sctplab.run(CHAIN, out=tmp_path / "plain")
    assert (chain_run / "summary.json").read_bytes() == (
        tmp_path / "plain" / "summary.json"
    ).read_bytes()


def test_trace_records_every_cbr_hop(chain_run: Path) -> None:
    lines = (chain_run / "anim.jsonl").read_text().splitlines()
    header = json.loads(lines[0])
    assert (header["format"], header["version"]) == ("sctplab-anim", 1)
    hops = [json.loads(x) for x in lines[1:] if x.startswith('["hop"')]
    # 10 packets a second from 0 s, each link 108.224 ms: a 1028-byte IP packet at
    # 1 Mb/s (8,224 us) plus 100 ms. Hops starting before 3 s: packets sent at 0 .. 2.7 s
    # start all three (28 x 3), the one at 2.8 s two, the one at 2.9 s one: 87.
    assert len(hops) == 87
    assert {h[2] for h in hops} == {108_224}
    assert {(h[3], h[4]) for h in hops} == {(0, 1), (1, 2), (2, 3)}


def test_page_is_one_self_contained_file(chain_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    r = _cli("animate", str(chain_run), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"wrote {out}"
    page = out.read_text()
    # No element loads anything: no src/href attributes, no URL of any scheme.
    assert not re.search(r"\s(src|href)\s*=\s*[\"']", page)
    assert not re.search(r"(https?|ftp|wss?)://", page)
    assert "default-src 'none'" in page
    data = json.loads(
        re.search(r'<script type="application/json" id="anim-data">(.*?)</script>', page, re.S)[1]  # type: ignore[index]
    )
    assert [n["name"] for n in data["nodes"]] == ["a", "b", "c", "d"]
    assert len(data["hop"]["t"]) == len(data["hop"]["kind"]) > 80
    # The default output is beside the trace.
    assert _cli("animate", str(chain_run)).returncode == 0
    assert (chain_run / "animation.html").stat().st_size > 0


def test_python_api_shows_in_a_notebook(chain_run: Path) -> None:
    a = sctplab.animate(chain_run)
    assert a.html.startswith("<!DOCTYPE html>")
    frame = a._repr_html_()
    assert frame.startswith("<iframe sandbox=") and "srcdoc=" in frame
    assert sctplab.animate.animate(chain_run).html == a.html


def test_a_name_cannot_close_the_data_element() -> None:
    # Node names are plain words, but the trace is a file anyone can edit.
    header = {
        "format": "sctplab-anim",
        "version": 1,
        "scenario": "</script>__PLAYER__",
        "nodes": [{"name": "</script><script>alert(1)</script>", "wireless": False}],
        "links": [],
        "flows": [],
    }
    page = render(AnimData(header=header))
    assert page.count("</script>") == 2
    assert page.count("function posOf") == 1
    assert "<script>alert" not in page


def test_missing_or_foreign_trace_is_one_line_exit_2(chain_run: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    sctplab.run(CHAIN, out=bare)
    r = _cli("animate", str(bare))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "--trace anim" in r.stderr

    other = tmp_path / "other"
    other.mkdir()
    lines = (chain_run / "anim.jsonl").read_text().splitlines()
    header = json.loads(lines[0])
    header["version"] = 99
    (other / "anim.jsonl").write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    r = _cli("animate", str(other))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "version 99" in r.stderr

    (other / "anim.jsonl").write_text(lines[0] + '\n["hop",1,2\n')
    r = _cli("animate", str(other))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "line 2: malformed record" in r.stderr

    (other / "anim.jsonl").write_bytes(b"\xff\xfe\x00")
    r = _cli("animate", str(other))
    assert r.returncode == 2 and r.stderr.count("\n") == 1

    r = _cli("animate", str(tmp_path / "nowhere"))
    assert r.returncode == 2 and "not a run folder" in r.stderr


def test_layout_is_deterministic_and_spreads_a_chain() -> None:
    edges = [(0, 1), (1, 2), (2, 3)]
    pos = layout(4, edges)
    assert pos == layout(4, edges)
    assert all(0 <= x <= 1 and 0 <= y <= 1 for x, y in pos)
    # Neighbours closer than the chain's ends.
    d = [((pos[i][0] - pos[j][0]) ** 2 + (pos[i][1] - pos[j][1]) ** 2) ** 0.5 for i, j in edges]
    ends = ((pos[0][0] - pos[3][0]) ** 2 + (pos[0][1] - pos[3][1]) ** 2) ** 0.5
    assert max(d) < ends
    assert min(d) > 0.2


def test_a_run_stopped_by_max_output_still_animates(tmp_path: Path) -> None:
    out = tmp_path / "cut"
    with pytest.raises(sctplab.UsageError, match="--max-output"):
        sctplab.run(CHAIN, out=out, trace="anim", max_output=1500)
    data = page_data(read(out))
    # No `end` record: the page ends with the last hop written.
    assert data["hop"]["t"]
    assert data["end_us"] == data["hop"]["t"][-1] + data["hop"]["dur"][-1] < 3_000_000
