#!/usr/bin/env python3
"""Drive an `sctplab animate` page in headless Chromium (Debian's chromium and
chromium-driver, selenium from the test extras).

  screenshot PAGE.html OUT.png [--at SECONDS] [--flow NAME]
      the page paused at a time, a flow highlighted (docs/animate.md names the command
      that took docs/animate.png)
  fps PAGE.html [--speed X] [--seconds S]
      the benchmark of bench/RESULTS.md: plays the page and measures frames per second
      through requestAnimationFrame timing (every frame the page draws while playing),
      and the page's own drawing time per frame; prints one JSON line
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any


def chrome(width: int = 1240, height: int = 900) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if binary is None or driver is None:
        sys.exit(
            "animate_browser: needs chromium and chromedriver "
            "(apt-get install chromium chromium-driver)"
        )
    opts = Options()
    opts.binary_location = binary
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        f"--window-size={width},{height}",
        "--force-device-scale-factor=1",
        "--disable-background-networking",
        "--no-first-run",
    ):
        opts.add_argument(arg)
    return webdriver.Chrome(service=Service(driver), options=opts)


def open_page(driver: Any, page: Path) -> None:
    driver.get(page.resolve().as_uri())
    deadline = time.monotonic() + 60
    while not driver.execute_script("return !!window.sctplabAnim"):
        if time.monotonic() > deadline:
            sys.exit(f"animate_browser: {page}: the player did not start")
        time.sleep(0.05)


def screenshot(page: Path, out: Path, at: float, flow: str | None) -> None:
    driver = chrome()
    try:
        open_page(driver, page)
        if flow is not None:
            names = driver.execute_script("return sctplabAnim.data.flows.map(f => f.name)")
            if flow not in names:
                sys.exit(f"animate_browser: no flow {flow!r}; the page has {names}")
            driver.execute_script("sctplabAnim.selectFlow(arguments[0])", names.index(flow))
        before = driver.execute_script("return sctplabAnim.state().frames")
        driver.execute_script("sctplabAnim.seek(arguments[0])", at * 1e6)
        while driver.execute_script("return sctplabAnim.state().frames") == before:
            time.sleep(0.02)
        driver.save_screenshot(str(out))
    finally:
        driver.quit()
    print(f"wrote {out}")


# Counts requestAnimationFrame callbacks in the page's own loop's rhythm: one callback
# per frame the browser renders while the player plays.
_MEASURE = """
const done = arguments[arguments.length - 1];
const seconds = arguments[0];
const a = window.sctplabAnim;
const s0 = a.state();
let frames = 0, first = null, last = null;
function tick(now) {
  if (first === null) first = now;
  last = now;
  frames++;
  if (now - first < seconds * 1000) requestAnimationFrame(tick);
  else {
    const s1 = a.state();
    done({frames: frames - 1, wall_s: (last - first) / 1000,
          drawn: s1.frames - s0.frames, draw_ms: s1.drawMs - s0.drawMs,
          sim_s: (s1.t - s0.t) / 1e6});
  }
}
requestAnimationFrame(tick);
"""


def fps(page: Path, speed: float, seconds: float, node: str | None = None) -> None:
    driver = chrome()
    try:
        open_page(driver, page)
        driver.set_script_timeout(seconds + 60)
        if node is not None:
            # A selected node: its route table is rebuilt and drawn every frame.
            names = driver.execute_script("return sctplabAnim.data.nodes.map(n => n.name)")
            driver.execute_script("sctplabAnim.selectNode(arguments[0])", names.index(node))
        driver.execute_script("sctplabAnim.setSpeed(arguments[0]); sctplabAnim.play()", speed)
        r = driver.execute_async_script(_MEASURE, seconds)
    finally:
        driver.quit()
    out = {
        "page": str(page),
        "page_bytes": page.stat().st_size,
        "speed": speed,
        "fps": round(r["frames"] / r["wall_s"], 1) if r["wall_s"] > 0 else None,
        # Frames the player drew (it stops drawing once the run's end is reached).
        "drawn_fps": round(r["drawn"] / r["wall_s"], 1) if r["wall_s"] > 0 else None,
        "draw_ms_per_frame": round(r["draw_ms"] / r["drawn"], 2) if r["drawn"] else None,
        "simulated_s": round(r["sim_s"], 2),
        "wall_s": round(r["wall_s"], 2),
    }
    print(json.dumps(out))


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("screenshot")
    s.add_argument("page", type=Path)
    s.add_argument("out", type=Path)
    s.add_argument("--at", type=float, default=0.0, help="simulated seconds")
    s.add_argument("--flow", default=None, help="a flow to highlight")
    f = sub.add_parser("fps")
    f.add_argument("page", type=Path)
    f.add_argument("--speed", type=float, default=10.0)
    f.add_argument("--seconds", type=float, default=10.0)
    f.add_argument("--node", default=None, help="a node to select while playing")
    a = p.parse_args()
    if a.cmd == "screenshot":
        screenshot(a.page, a.out, a.at, a.flow)
    else:
        fps(a.page, a.speed, a.seconds, a.node)


if __name__ == "__main__":
    main()
