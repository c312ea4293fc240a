#!/usr/bin/env bash
# Installs what the tests need (system packages, the package itself with its test extras)
# and runs every test: Rust (fmt, clippy, cargo test) and Python (ruff, mypy, pytest).
# The README's second quick-start command; .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

# The quick start's first command makes .venv: use it when no environment is active
# (Debian 12's system pip refuses to install outside one). CI has none and runs as is.
if [ -z "${VIRTUAL_ENV:-}" ] && [ -x .venv/bin/python3 ]; then
  echo "== using .venv"
  # shellcheck disable=SC1091
  . .venv/bin/activate
fi

need_apt=()
command -v tshark >/dev/null 2>&1 || need_apt+=(tshark)
# ns-2.35 with the Delaware SCTP module: an independent oracle in validation tests only.
command -v ns >/dev/null 2>&1 || need_apt+=(ns2)
# ns-3.37 (Debian's ns3 + libns3-dev): `sctplab validate ns3` compiles the project's own
# ns-3 program (python/sctplab/ns3/) with the C++ compiler, an oracle in validation only.
[ -f /usr/include/ns3/core-module.h ] || need_apt+=(ns3 libns3-dev)
command -v g++ >/dev/null 2>&1 || need_apt+=(g++)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
# Live-mode interop tests build a usrsctp peer (tests/live/usrsctp_peer.c) with the system
# C compiler against Debian's usrsctp.
command -v cc >/dev/null 2>&1 || need_apt+=(gcc libc6-dev)
[ -f /usr/include/usrsctp.h ] || need_apt+=(libusrsctp-dev)
# The animator's page is tested in a real browser (tests/test_animate_browser.py).
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need_apt+=(chromium-driver)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "== apt-get install ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

echo "== pip install .[test]"
PIP_CONSTRAINT="$PWD/constraints.txt" python3 -m pip install -q ".[test]"

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -q -- -D warnings
echo "== cargo test"
cargo test -p sctplab-core --locked
cargo test -p sctplab-py --locked

echo "== ruff, mypy"
python3 -m ruff check python tests build_backend
python3 -m ruff format --check python tests build_backend
python3 -m mypy

echo "== pytest"
python3 -m pytest -q -p no:cacheprovider
