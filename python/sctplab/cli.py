"""The `sctplab` command line (CONTRACTS.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from sctplab import _core
from sctplab.runner import run as run_scenario
from sctplab.scenario_input import parse_set, read_scenario


def _fail(message: str, status: int = 2) -> None:
    # One line, no traceback: bad input is the user's to fix, not a crash.
    click.echo(f"sctplab: error: {' '.join(message.split())}", err=True)
    sys.exit(status)


def _split(values: tuple[str, ...]) -> list[str]:
    return [p.strip() for v in values for p in v.split(",") if p.strip()]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(_core.__version__, prog_name="sctplab")
def cli() -> None:
    """sctplab: SCTP and TCP simulation studies, reproduced."""


@cli.command("run")
@click.argument("scenario", type=str)
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override one scenario value (dotted path, TOML value). Repeatable.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Run seed.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Output folder [default: runs/<scenario>-<seed>].",
)
@click.option("--pcap", is_flag=True, help="Write pcap files under OUT/pcap/.")
@click.option(
    "--trace",
    "traces",
    multiple=True,
    metavar="KINDS",
    help="Event traces, comma separated: ns2, sends, acks.",
)
@click.option(
    "--series",
    "series",
    multiple=True,
    metavar="KINDS",
    help="Sampled variables, comma separated: cwnd, ssthresh, flight, rwnd, queue, ...",
)
@click.option("--quiet", is_flag=True, help="No progress heartbeat.")
def run_cmd(
    scenario: str,
    sets: tuple[str, ...],
    seed: int,
    out: Path | None,
    pcap: bool,
    traces: tuple[str, ...],
    series: tuple[str, ...],
    quiet: bool,
) -> None:
    """Run one SCENARIO (a TOML file) and write its run folder."""
    path = Path(scenario)
    if not path.is_file():
        _fail(f"{scenario}: no such scenario file")
    if seed < 0:
        _fail(f"--seed {seed}: expected a non-negative integer")
    parsed = [parse_set(s) for s in sets]
    name, _ = _core.resolve(
        read_scenario(path).text, source=str(path), default_name=path.stem, sets=parsed
    )
    out_dir = out if out is not None else Path("runs") / f"{name}-{seed}"
    result = run_scenario(
        path,
        seed=seed,
        out=out_dir,
        pcap=pcap,
        trace=_split(traces),
        series=_split(series),
        progress=not quiet and sys.stderr.isatty(),
        raw_sets=parsed,
    )
    if not quiet:
        flows = result.summary["flows"]
        click.echo(
            f"{name} seed {seed}: {result.summary['sim_time_s']:g} s simulated, "
            f"{result.events} events in {result.wall_s:.2f} s, {len(flows)} flow(s) -> {out_dir}"
        )


def main() -> None:
    """Entry point: turns every expected error into one line and exit status 2."""
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        _fail("aborted", 130)
    except click.exceptions.ClickException as e:
        _fail(e.format_message(), e.exit_code if e.exit_code != 1 else 2)
    except (_core.ScenarioError, _core.UsageError) as e:
        _fail(str(e))
    except OSError as e:
        _fail(str(e), 1)


if __name__ == "__main__":
    main()
