"""The animator's page in a real browser (issue 41): headless Chromium (Debian's
`chromium` and `chromium-driver`, which scripts/test.sh installs) opens the page of a
small static wired run, plays it, and the test checks that nothing went wrong (no
console error, no request but the page itself) and that the canvas shows what the trace
says: nodes where the layout puts them, and a packet moving along its link.

Skipped, saying why, when Chromium, its driver or selenium is missing."""

from __future__ import annotations

import io
import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_animate import CHAIN

import sctplab
from sctplab.animate.layout import layout
from sctplab.animate.page import VIEW

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="headless Chromium not installed (apt-get install chromium chromium-driver)",
)

NODE = (31, 111, 235)  # player.js NODE
DATA = (232, 89, 12)  # player.js KIND_COLOR[0], a data packet
ROUTING = (174, 62, 201)  # player.js KIND_COLOR[3], the selected node's route table


def _chrome() -> Any:
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = str(CHROMIUM)
    for arg in (
        "--headless=new",
        "--no-sandbox",  # the test suite may run as root (containers)
        "--disable-gpu",
        "--window-size=1300,900",
        "--force-device-scale-factor=1",
        "--disable-background-networking",
        "--no-first-run",
    ):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    # The driver's path given: selenium does not look for (or download) one.
    return webdriver.Chrome(service=Service(str(DRIVER)), options=opts)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    driver = _chrome()
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("browser") / "run"
    sctplab.run(CHAIN, out=run, trace="anim")
    return sctplab.animate(run).save(run / "animation.html")


def _pixel(png: bytes, x: float, y: float) -> tuple[int, int, int]:
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB")
    return img.getpixel((round(x), round(y)))  # type: ignore[return-value]


def _near(c: tuple[int, int, int], want: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 3 for a, b in zip(c, want, strict=True))


def _screen(x: float, y: float, origin: tuple[float, float]) -> tuple[float, float]:
    """docs/animate.md's transform: the unit square of the layout fitted into the
    canvas less its margin, centred; `origin` is the canvas's inner top-left corner."""
    w, h, m = VIEW["width"], VIEW["height"], VIEW["margin"]
    scale = min(w - 2 * m, h - 2 * m)
    ox = m + (w - 2 * m - scale) / 2
    oy = m + (h - 2 * m - scale) / 2
    return origin[0] + ox + x * scale, origin[1] + oy + y * scale


def _draw_at(browser: Any, t_us: float) -> None:
    before = browser.execute_script("return sctplabAnim.state().frames")
    browser.execute_script("sctplabAnim.seek(arguments[0])", t_us)
    deadline = time.monotonic() + 5
    while browser.execute_script("return sctplabAnim.state().frames") == before:
        assert time.monotonic() < deadline, "the page drew no frame after a seek"
        time.sleep(0.02)


def test_page_plays_offline_and_draws_nodes_and_packets(browser: Any, page: Path) -> None:
    browser.get(page.as_uri())
    deadline = time.monotonic() + 10
    while not browser.execute_script("return !!window.sctplabAnim"):
        assert time.monotonic() < deadline, "the player did not start"
        time.sleep(0.05)

    # Play a few seconds at 1x: simulated time advances with the wall clock.
    browser.execute_script("sctplabAnim.setSpeed(1); sctplabAnim.play()")
    time.sleep(2.5)
    state = browser.execute_script("return sctplabAnim.state()")
    assert state["playing"] and 1.5e6 < state["t"] <= 3e6, state
    assert state["frames"] > 20, state
    browser.execute_script("sctplabAnim.pause()")

    canvas = browser.find_element("id", "map")
    loc = canvas.location
    origin = (loc["x"] + 1, loc["y"] + 1)  # inside the 1-px border
    data = browser.execute_script("return sctplabAnim.data")
    # Nodes: where the layout (computed here, independently of the page) puts them.
    links = [(a, b) for a, b, *_ in data["links"]]
    assert links == [(0, 1), (1, 2), (2, 3)]
    where = layout(4, links)
    hop = data["hop"]
    # A data packet crossing b -> c (CBR packets are 100 ms apart and take 108 ms, so it
    # is the only one on that link): seen a quarter and three quarters of the way.
    i = next(k for k in range(len(hop["t"])) if (hop["from"][k], hop["to"][k]) == (1, 2))
    t0, dur = hop["t"][i], hop["dur"][i]
    for frac in (0.25, 0.75):
        _draw_at(browser, t0 + frac * dur)
        png = browser.get_screenshot_as_png()
        for n, (x, y) in enumerate(where):
            c = _pixel(png, *_screen(x, y, origin))
            assert _near(c, NODE), f"node {n} at {frac}: pixel {c}"
        bx, by = where[1]
        cx, cy = where[2]
        px, py = _screen(bx + (cx - bx) * frac, by + (cy - by) * frac, origin)
        # Drawn VIEW["packet_offset"] pixels to the right of its way (docs/animate.md).
        (sbx, sby), (scx, scy) = _screen(bx, by, origin), _screen(cx, cy, origin)
        norm = ((scx - sbx) ** 2 + (scy - sby) ** 2) ** 0.5
        px -= (scy - sby) / norm * VIEW["packet_offset"]
        py += (scx - sbx) / norm * VIEW["packet_offset"]
        c = _pixel(png, px, py)
        assert _near(c, DATA), f"no packet at {frac} of the way: pixel {c}"

    # No console error, and no request but the page's own file.
    logs = browser.get_log("browser")
    assert not [e for e in logs if e["level"] == "SEVERE"], logs
    urls = set()
    for entry in browser.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.requestWillBeSent":
            urls.add(msg["params"]["request"]["url"])
    assert urls <= {page.as_uri()}, urls
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0


def test_satellite_page_draws_stations_and_satellites(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """leo-starlink for 2 s: the equirectangular map (docs/animate.md: x = longitude +
    180, y = 90 - latitude, 2:1) shows London and New York at their coordinates and
    satellite 0 (plane 0, index 0: latitude 0, longitude 0 at time 0) at the centre."""
    import subprocess
    import sys

    run = tmp_path_factory.mktemp("leo") / "run"
    scenario = Path(__file__).resolve().parent.parent / "scenarios" / "leo-starlink.toml"
    args = ["run", str(scenario), "--set", 'duration="2s"', "--trace", "anim", "--out", str(run)]
    r = subprocess.run(
        [sys.executable, "-m", "sctplab.cli", *args, "--quiet"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    page = sctplab.animate(run).save(run / "animation.html")
    browser.get(page.as_uri())
    deadline = time.monotonic() + 10
    while not browser.execute_script("return !!window.sctplabAnim"):
        assert time.monotonic() < deadline, "the player did not start"
        time.sleep(0.05)
    _draw_at(browser, 0)
    png = browser.get_screenshot_as_png()
    loc = browser.find_element("id", "map").location
    w, m = VIEW["width"], VIEW["margin"]
    scale = (w - 2 * m) / 360  # the 2:1 canvas: the map fills it less the margin
    for lat, lon in ((51.51, -0.13), (40.71, -74.01), (0.0, 0.0)):
        x = loc["x"] + 1 + m + (lon + 180) * scale
        y = loc["y"] + 1 + m + (90 - lat) * scale
        c = _pixel(png, x, y)
        assert _near(c, NODE), f"no node at latitude {lat}, longitude {lon}: pixel {c}"
    logs = browser.get_log("browser")
    assert not [e for e in logs if e["level"] == "SEVERE"], logs


def test_selected_node_shows_its_route_table(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The AODV chain of tests/test_animate_tables.py: at 1 s, n1's table (rebuilt by the
    player from the `table` records) holds n0 and n2, each its own next hop at 1 hop,
    n0's holds n2 via n1 at 2 hops; selecting n1 lists them in the panel and draws the
    dotted route-table lines to both neighbours, and no console error."""
    from test_animate_tables import AODV_CHAIN

    run = tmp_path_factory.mktemp("tables-browser") / "run"
    sctplab.run(AODV_CHAIN, out=run, trace="anim")
    page = sctplab.animate(run).save(run / "animation.html")
    browser.get(page.as_uri())
    deadline = time.monotonic() + 10
    while not browser.execute_script("return !!window.sctplabAnim"):
        assert time.monotonic() < deadline, "the player did not start"
        time.sleep(0.05)
    table = browser.execute_script("return sctplabAnim.tableAt(arguments[0], 1e6)", 1)
    assert table == [[0, [0, 1]], [2, [2, 1]]]
    assert browser.execute_script("return sctplabAnim.tableAt(0, 1e6)") == [[2, [1, 2]]]
    assert browser.execute_script("return sctplabAnim.tableAt(1, 4e5)") == []
    browser.execute_script("sctplabAnim.selectNode(1)")
    _draw_at(browser, 1e6)
    info = browser.find_element("id", "info").text
    assert "route table: 2 routes" in info, info
    assert "to n0 via n0, 1 hop" in info and "to n2 via n2, 1 hop" in info, info
    # The dotted line n1 -> n2 at a quarter of the way (between the dots of the 2-3
    # dash pattern, so a few pixels along it are looked at).
    png = browser.get_screenshot_as_png()
    loc = browser.find_element("id", "map").location
    a = browser.execute_script("return sctplabAnim.toScreen(300, 100)")
    b = browser.execute_script("return sctplabAnim.toScreen(500, 100)")
    x0 = loc["x"] + 1 + a[0] + (b[0] - a[0]) * 0.25
    y0 = loc["y"] + 1 + a[1]
    seen = [_pixel(png, x0 + dx, y0) for dx in range(6)]
    assert any(_near(c, ROUTING) for c in seen), seen
    logs = browser.get_log("browser")
    assert not [e for e in logs if e["level"] == "SEVERE"], logs
