"""`sctplab reproduce messaging --quick` (issue 36, beyond the seeds): the small-message
delays per stream scheduler against what the model's rules imply, by hand:

- first come first served puts a 200-byte message behind everything the 256 KiB send
  buffer holds; at 1 % loss on the satellite link the flight is a small part of it, so
  `priority` (the small stream first, once the 16 KB message being cut is complete)
  must be several times faster;
- `rr` serves one small message per 16 KB message; at 1 % loss a 16 KB message takes
  far longer than the 100 ms between small messages, so their queue grows for the whole
  run and `rr` is slower than first come first served;
- timed reliability (1 s) with first come first served abandons what would wait
  longer: at 1 % loss, where first come first served's mean is several seconds, nearly
  every small message, and the few delivered stay well under that mean;
- with I-DATA the scheduler chooses per chunk: `rr` then serves one chunk of each stream
  in turn, and ten 200-byte messages a second need a small part of the link, so the
  small stream keeps up (several times faster than first come first served and than
  `rr` with DATA); `priority` no longer waits for the rest of the 16 KB message being
  cut, so it is faster than with DATA;
- the same lifetime with I-DATA and round robin: the small stream keeps up (above), so
  its messages wait far less than the lifetime and few are abandoned, where first come
  first served abandons nearly all."""

from __future__ import annotations

import csv
from pathlib import Path

from conftest import sctplab


def test_messaging_quick(tmp_path: Path) -> None:
    out = tmp_path / "repro"
    r = sctplab("reproduce", "messaging", "--quick", "--out", out)
    assert r.returncode == 0, r.stderr
    with (out / "messaging" / "data.csv").open() as f:
        rows = list(csv.DictReader(f))
    mean = {
        (r["item"], r["series"], r["x"], r["metric"]): float(r["mean"]) for r in rows if r["mean"]
    }

    def small(series: str, metric: str = "message_delay_mean_s") -> float:
        return mean[("small_delay", series, "0.01", metric)]

    assert small("sctp-fcfs") > 3 * small("sctp-priority")
    assert small("sctp-rr") > small("sctp-fcfs")
    assert small("sctp-fcfs") > 3.0
    assert small("sctp-idata-rr") < small("sctp-fcfs") / 3
    assert small("sctp-idata-rr") < small("sctp-rr") / 3
    assert small("sctp-idata-priority") < small("sctp-priority")
    assert mean[("abandoned", "prsctp-ttl", "0.01", "abandoned_pct")] > 90
    ttl_p99 = mean.get(("small_delay", "prsctp-ttl", "0.01", "message_delay_p99_s"))
    assert ttl_p99 is None or ttl_p99 < small("sctp-fcfs")
    ttl_idata = mean[("abandoned", "prsctp-ttl-idata-rr", "0.01", "abandoned_pct")]
    assert ttl_idata < mean[("abandoned", "prsctp-ttl", "0.01", "abandoned_pct")] / 3
    report = (out / "report.md").read_text()
    assert "(messaging/small_delay.png)" in report
    assert (out / "messaging" / "small_delay.md").is_file()
