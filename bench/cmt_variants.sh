#!/usr/bin/env bash
# Usage: bench/cmt_variants.sh BIN OUTDIR
# Runs 24 variants of scenarios/cmt.toml (seed 3, 300 s of simulated time) with BIN (a
# `core_run`) and writes OUTDIR/<variant>.json (summary.json). A change meant to keep
# CMT's results compares two OUTDIRs, before and after, with `cmp` (or `diff -r`):
# bench/refcheck.sh covers scenarios/cmt.toml itself; these cover CMT's knobs beyond it
# (loss on path B, unequal delays, each retransmission policy, SFR / DAC+CUC / CMT-PF
# off, single path, NR-SACK ordered and unordered, a send buffer, buffer splitting, a
# small receive buffer, LIA, OLIA, multiple_fast_rtx, 4 streams).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:?usage: bench/cmt_variants.sh BIN OUTDIR}
OUT=${2:?usage: bench/cmt_variants.sh BIN OUTDIR}
mkdir -p "$OUT"
S=scenarios/cmt.toml
run() {
  n=$1
  shift
  "$BIN" $S --seed 3 --set duration=300s "$@" --summary "$OUT/$n.json" >/dev/null 2>&1 ||
    echo "FAIL $n" >&2
}
run loss1 --set links.rb_h2.loss.rate=0.01
run loss3 --set links.rb_h2.loss.rate=0.03
run unequal --set links.rb_h2.delay=80ms
run same --set flows.sctp1.cmt_rtx_policy=same --set links.rb_h2.loss.rate=0.01
run nodac_nocuc --set flows.sctp1.cmt_dac=false --set flows.sctp1.cmt_cuc=false --set links.rb_h2.loss.rate=0.01
run nocmt --set flows.sctp1.cmt=false --set links.rb_h2.loss.rate=0.01
run asap --set flows.sctp1.cmt_rtx_policy=asap --set links.rb_h2.loss.rate=0.02
run lossrate --set flows.sctp1.cmt_rtx_policy=lossrate --set links.rb_h2.loss.rate=0.02
run ssthresh --set flows.sctp1.cmt_rtx_policy=ssthresh --set links.rb_h2.loss.rate=0.02
run nosfr --set flows.sctp1.cmt_sfr=false --set links.rb_h2.loss.rate=0.02
run nopf --set flows.sctp1.cmt_pf=false --set links.rb_h2.loss.rate=0.02
run nrsack --set flows.sctp1.nr_sack=true --set links.rb_h2.loss.rate=0.01
run nrsack_unord --set flows.sctp1.nr_sack=true --set flows.sctp1.unordered=true --set links.rb_h2.loss.rate=0.01
run nrsack_swnd --set flows.sctp1.nr_sack=true --set flows.sctp1.send_buffer=64KiB --set flows.sctp1.unordered=true --set links.rb_h2.loss.rate=0.01
run nrsack_nocmt --set flows.sctp1.nr_sack=true --set flows.sctp1.cmt=false --set links.rb_h2.loss.rate=0.01
run bs_sender --set flows.sctp1.buffer_splitting=sender --set flows.sctp1.send_buffer=64KiB --set links.rb_h2.delay=80ms
run bs_receiver --set flows.sctp1.buffer_splitting=receiver --set flows.sctp1.receive_buffer=64KiB --set links.rb_h2.delay=80ms
run bs_both --set flows.sctp1.buffer_splitting=both --set flows.sctp1.receive_buffer=64KiB --set flows.sctp1.send_buffer=64KiB --set flows.sctp1.unordered=true --set links.rb_h2.loss.rate=0.01
run rwnd_small --set flows.sctp1.receive_buffer=32KiB --set links.rb_h2.loss.rate=0.02
run lia --set flows.sctp1.coupled_cc=lia --set links.rb_h2.loss.rate=0.01
run olia --set flows.sctp1.coupled_cc=olia --set links.rb_h2.loss.rate=0.01
run mfr --set flows.sctp1.multiple_fast_rtx=true --set links.rb_h2.loss.rate=0.03
run nocmt_unord --set flows.sctp1.cmt=false --set flows.sctp1.unordered=true --set links.rb_h2.loss.rate=0.01 --set links.ra_h2.loss.rate=0.01
run streams4 --set flows.sctp1.streams=4 --set links.rb_h2.loss.rate=0.02
echo "wrote $(ls "$OUT" | wc -l) summaries to $OUT"
