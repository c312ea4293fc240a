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


class _Commands(click.Group):
    """The command group, with `live` (its own module, the association over real UDP)
    imported only when asked for: `sctplab run` should not load it at start-up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), "live"})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and "live" not in self.commands:
            # `live`, or a name click will answer with "did you mean" from the commands.
            from sctplab.live import live_group

            self.add_command(live_group)
            command = super().get_command(ctx, cmd_name)
        return command


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
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
    help="Event traces, comma separated: ns2, sends, acks, anim.",
)
@click.option(
    "--series",
    "series",
    multiple=True,
    metavar="KINDS",
    help="Sampled variables, comma separated: cwnd, ssthresh, flight, rwnd, queue, pacing_rate ...",
)
@click.option(
    "--max-output",
    metavar="SIZE",
    default=None,
    help="Stop the run (exit status 2) once its pcap and trace files pass SIZE, e.g. 500MB.",
)
@click.option("--quiet", is_flag=True, help="No progress heartbeat.")
@click.option(
    "--force",
    is_flag=True,
    help="Replace an output folder that holds the run of another scenario or seed.",
)
@click.option(
    "--shortcuts",
    default="all",
    show_default=True,
    metavar="all|none|LIST",
    help="Checking tool: the wireless shortcuts to take (none: every MAC timer and "
    "reception an event); summary.json is the same but for `events`.",
)
def run_cmd(
    scenario: str,
    sets: tuple[str, ...],
    seed: int,
    out: Path | None,
    pcap: bool,
    traces: tuple[str, ...],
    series: tuple[str, ...],
    max_output: str | None,
    quiet: bool,
    force: bool,
    shortcuts: str,
) -> None:
    """Run one SCENARIO (a TOML file) and write its run folder."""
    path = Path(scenario)
    if not path.is_file():
        _fail(f"{scenario}: no such scenario file")
    from sctplab.run_args import file_blame
    from sctplab.runner import check_seed, movement_file_sets

    check_seed(seed)
    parsed = [parse_set(s) for s in sets]
    src = read_scenario(path)
    resolve_sets, _ = movement_file_sets(src, parsed)
    with file_blame(src, parsed, resolve_sets):
        name, _ = _core.resolve(
            src.text, source=str(path), default_name=path.stem, sets=resolve_sets
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
        force=force,
        raw_sets=parsed,
        max_output=max_output,
        output_notes=not quiet,
        shortcuts=shortcuts,
    )
    if not quiet:
        flows = result.summary["flows"]
        click.echo(
            f"{name} seed {seed}: {result.summary['sim_time_s']:g} s simulated, "
            f"{result.events} events in {result.wall_s:.2f} s, {len(flows)} flow(s) -> {out_dir}"
        )


@cli.command("movement")
@click.argument("scenario", type=str)
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Override one value.")
@click.option("--seed", type=int, default=1, show_default=True, help="Run seed.")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the movement file here [default: standard output].",
)
def movement_cmd(scenario: str, sets: tuple[str, ...], seed: int, out: Path | None) -> None:
    """Write the movement of a wireless SCENARIO's nodes with SEED as an ns-2 setdest
    file: the random waypoint legs `sctplab run` draws, so ns-2 can replay them."""
    from sctplab.runner import movement

    path = Path(scenario)
    if not path.is_file():
        _fail(f"{scenario}: no such scenario file")
    from sctplab.runner import check_seed

    check_seed(seed)
    text = movement(path, seed=seed, raw_sets=[parse_set(s) for s in sets])
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as e:  # /dev/full, a folder in the way: the output given is bad
        _fail(f"--out {out}: cannot write: {e.strerror or type(e).__name__}")


# The commands below import their modules when they run: the sweep machinery pulls in
# rich, sqlite3 and multiprocessing, plotting pulls in matplotlib, and `sctplab run`
# should not pay for any of that at start-up.


@cli.command("sweep")
@click.argument("scenario", type=str)
@click.option(
    "--grid",
    "grids",
    multiple=True,
    metavar="KEY=JSON_LIST",
    help="Values of one scenario key, e.g. 'links.bottleneck.loss.rate=[0.008,0.01]'. "
    "Repeatable: the sweep runs the cross product.",
)
@click.option(
    "--seeds",
    type=click.IntRange(min=1),
    required=True,
    metavar="N",
    help="Run every grid point with seeds 1..N.",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    metavar="J",
    help="Local worker processes [default: the CPU count].",
)
@click.option(
    "--scheduler",
    metavar="tcp://HOST:PORT",
    default=None,
    help="Run on an existing Dask distributed cluster instead of local processes.",
)
@click.option(
    "--store",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("store"),
    show_default=True,
    help="Results store (run folders and catalog); runs already there are not run again.",
)
@click.option(
    "--run-timeout",
    type=float,
    default=None,
    metavar="SECONDS",
    help="Stop a run after this much wall time; it is recorded as failed and the sweep goes on.",
)
@click.option("--quiet", is_flag=True, help="No progress bar and no summary line.")
def sweep_cmd(
    scenario: str,
    grids: tuple[str, ...],
    seeds: int,
    jobs: int | None,
    scheduler: str | None,
    store: Path,
    run_timeout: float | None,
    quiet: bool,
) -> None:
    """Run SCENARIO over a grid of values times seeds 1..N into the results store.

    Exit status 0 when every run succeeded, 1 when some failed (they are kept in the
    catalog with their error and tried again by the next sweep), 2 on bad input.
    """
    from sctplab.sweeps import MAX_RUNS, SweepReport, parse_grid, run_sweep

    path = Path(scenario)
    if not path.is_file():
        _fail(f"{scenario}: no such scenario file")
    grid = parse_grid(grids)
    planned = seeds
    for values in grid.values():
        planned *= len(values)
    if not quiet and 100_000 <= planned <= MAX_RUNS:
        # Planning and checking the store take seconds for grids this size: say so first.
        click.echo(f"{path.stem}: planning {planned} run(s) ...", err=True)

    def started(r: SweepReport) -> None:
        if quiet:
            return
        todo = r.requested - r.reused
        where = f" on {r.executor}" if todo else ""
        cleaned = ""
        c = r.cleanup
        if c is not None and (c.adopted or c.kept or c.missing_rows_dropped):
            notes = [
                f"adopted {c.adopted} run folder(s) the catalog lacked" if c.adopted else "",
                f"kept {c.kept} folder(s) under runs/ the catalog does not know" if c.kept else "",
                f"dropped {c.missing_rows_dropped} row(s) whose folder was gone"
                if c.missing_rows_dropped
                else "",
            ]
            cleaned = f" ({', '.join(n for n in notes if n)})"
        click.echo(
            f"{r.scenario}: {r.requested} run(s), {r.reused} already in {r.store}, "
            f"{todo} to run{where}{cleaned}",
            err=True,
        )

    report = run_sweep(
        path,
        grid,
        seeds,
        jobs=jobs,
        scheduler=scheduler,
        store=store,
        progress=not quiet and sys.stderr.isatty(),
        on_start=started,
        run_timeout=run_timeout,
    )
    if not quiet:
        rate = report.ran / report.wall_s if report.wall_s > 0 else 0.0
        click.echo(
            f"{report.scenario}: {report.ran} run(s) done, {len(report.failed)} failed, "
            f"{report.reused} reused in {report.wall_s:.1f} s ({rate:.1f} runs/s) -> {store}"
        )
    shown = report.failed[:10]
    for run, error in shown:
        # The grid point (not the movement file path the scenario's own key became).
        sets = [(k, v) for k, v in run.task.sets if k in run.params]
        point = ", ".join(f"{k}={v}" for k, v in sets) or "(no overrides)"
        click.echo(f"sctplab: run failed: {point} seed {run.key.seed}: {error}", err=True)
    if len(report.failed) > len(shown):
        click.echo(
            f"sctplab: ... and {len(report.failed) - len(shown)} more failed run(s); "
            f"`sctplab export --store {store} --format csv` lists them",
            err=True,
        )
    if report.failed:
        sys.exit(1)


@cli.command("export")
@click.option(
    "--store",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("store"),
    show_default=True,
    help="Results store to read.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "parquet"]),
    required=True,
    help="Output format.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Output file [default: STORE/export.csv or STORE/export.parquet].",
)
def export_cmd(store: Path, fmt: str, out: Path | None) -> None:
    """Write every run of a store as one table: parameters, seed, metrics, versions."""
    from sctplab.store import export

    target, n = export(store, fmt, out)
    click.echo(f"{n} run(s) -> {target}")


@cli.command("plot")
@click.argument("run_dir", type=click.Path(path_type=Path))
def plot_cmd(run_dir: Path) -> None:
    """Draw cwnd, sequence and throughput PNGs into RUN_DIR from the files it has."""
    from sctplab.plots import plot

    result = plot(run_dir)
    for path in result.written:
        click.echo(f"wrote {path}")
    for note in result.skipped:
        click.echo(note)


@cli.command("animate")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the page [default: RUN_DIR/animation.html].",
)
def animate_cmd(run_dir: Path, out: Path | None) -> None:
    """Write one self-contained HTML page that plays the run in RUN_DIR (run it with
    --trace anim): nodes, links, packets, drops, a time slider, flow charts."""
    from sctplab.animate import animate

    written = animate(run_dir).save(out if out is not None else run_dir / "animation.html")
    click.echo(f"wrote {written}")


STUDY_NAMES = [
    "satellite",
    "multistreaming",
    "newreno",
    "snoop",
    "manet",
    "messaging",
    "routing",
    "leo",
    "transports",
    "cmt",
    "all",
]


@cli.command("reproduce")
@click.argument("study", type=click.Choice(STUDY_NAMES))
@click.option("--quick", is_flag=True, help="Fewer seeds and shorter runs (said in the report).")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("reproduction"),
    show_default=True,
    help="Output folder: report.md and one folder per study.",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    metavar="J",
    help="Local worker processes [default: the CPU count].",
)
def reproduce_cmd(study: str, quick: bool, out: Path, jobs: int | None) -> None:
    """Regenerate a seed study's tables and figures (or all of them) beside the paper's.

    Progress goes to stderr (a bar on a terminal, a heartbeat line otherwise). Exit
    status 1 when a study failed (the others still run and the report says why).
    report.md gathers every study in the folder, so one study's run keeps the others'.
    """
    from sctplab.reproduce.report import reproduce

    outcome = reproduce([study], out, quick=quick, jobs=jobs)
    ran = ", ".join(f"{n} ({s:.0f} s)" for n, s in outcome.ran) or "none"
    click.echo(f"ran: {ran}")
    for name, reason in outcome.failed:
        click.echo(f"sctplab: study {name} failed: {reason}", err=True)
    click.echo(f"report: {outcome.report}")
    if outcome.failed:
        sys.exit(1)


@cli.group("validate")
def validate_group() -> None:
    """Compare sctplab with an independent simulator."""


@validate_group.command("ns2")
@click.option("--quick", is_flag=True, help="Fewer seeds and shorter runs.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("validation"),
    show_default=True,
    help="Output folder for validation.md and validation.csv.",
)
@click.option(
    "--ns2-cache",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder of cached ns-2 results of the wireless rows [default: OUT/ns2-cache].",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Processes for the wireless rows [default: one per core].",
)
def validate_ns2_cmd(quick: bool, out: Path, ns2_cache: Path | None, jobs: int | None) -> None:
    """Run the shipped ns-2.35 scripts and sctplab side by side; exit 1 if a check fails.

    Progress goes to stderr; the last line is `N/M checks pass`. A full run needs ns-2
    for about 37 minutes of two cores when its cache is empty (docs/validation.md)."""
    from sctplab.validation.ns2 import validate_ns2

    try:
        result = validate_ns2(out, quick=quick, ns2_cache=ns2_cache, jobs=jobs)
    except FileNotFoundError as e:
        _fail(str(e))
        return
    click.echo(f"report: {result.report}")
    click.echo(result.last_line)
    if not result.ok:
        sys.exit(1)


@validate_group.command("ns3")
@click.option("--quick", is_flag=True, help="Fewer seeds and shorter runs.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("validation"),
    show_default=True,
    help="Output folder for validation.md and validation.csv.",
)
@click.option(
    "--ns3-build",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Build cache of the ns-3 program [default: OUT/ns3-build].",
)
def validate_ns3_cmd(quick: bool, out: Path, ns3_build: Path | None) -> None:
    """Run the project's ns-3.37 program and sctplab side by side (TCP NewReno, CUBIC,
    BBR on a lossy dumbbell); exit 1 if a check fails.

    Progress goes to stderr; the last line is `N/M checks pass`. Needs Debian's ns3 and
    libns3-dev and a C++ compiler; the program is compiled once into the build cache."""
    from sctplab.validation.ns3 import validate_ns3

    try:
        result = validate_ns3(out, quick=quick, build_cache=ns3_build)
    except (FileNotFoundError, RuntimeError) as e:
        _fail(str(e))
        return
    click.echo(f"report: {result.report}")
    click.echo(result.last_line)
    if not result.ok:
        sys.exit(1)


def main() -> None:
    """Entry point: turns every expected error into one line and exit status 2."""
    try:
        cli.main(standalone_mode=False)
    except (click.exceptions.Abort, KeyboardInterrupt):
        # Ctrl-C: one line; a run folder left behind says it is incomplete (run.json).
        _fail("interrupted", 130)
    except click.exceptions.ClickException as e:
        _fail(e.format_message(), e.exit_code if e.exit_code != 1 else 2)
    except (_core.ScenarioError, _core.UsageError) as e:
        _fail(str(e))
    except _core.RunError as e:
        # Valid input, but the run could not finish (livelock, time overflow, timeout,
        # an internal error).
        _fail(str(e), 1)
    except OSError as e:
        _fail(str(e), 1)


if __name__ == "__main__":
    main()
