"""report.md gathers every study in the folder; tables and data.csv end lines in LF;
`reproduce --jobs` reaches the pool. Fake studies, so these run in well under a second."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sctplab.cli import cli
from sctplab.reproduce import pool, report
from sctplab.reproduce.common import Figure, Row, StudyResult, Table
from sctplab.tables import write_table


def _study(name: str, title: str, seen_jobs: list[int | None]) -> report.Reproducer:
    def run(out: Path, quick: bool) -> StudyResult:
        out.mkdir(parents=True, exist_ok=True)
        seen_jobs.append(pool._jobs)
        png = out / "fig.png"
        png.write_bytes(b"\x89PNG\r\n\x1a\n")
        res = StudyResult(name, title)
        res.rows = [
            Row("i", "s", "x", 1, "m", 1.5, 0.25, 3),
            Row("i", "s", "x", 2, "m", 2.0, None, 1),
        ]
        md = write_table(out, "table", ["a", "b"], [["1", "2"], ["3", "4"]])
        res.tables = [Table(f"{name} table", md)]
        res.figures = [Figure(png, f"{name} figure")]
        res.discussion = [f"{name} claim holds"]
        return res

    return run


def test_one_study_keeps_the_others_sections(tmp_path: Path) -> None:
    jobs: list[int | None] = []
    reg = {
        "satellite": _study("satellite", "Seed 000", jobs),
        "manet": _study("manet", "Seed 004", jobs),
    }
    report.reproduce(["satellite"], tmp_path, registry=reg)
    first = (tmp_path / "report.md").read_text()
    assert "## Seed 000" in first and "## Seed 004" not in first
    report.reproduce(["manet"], tmp_path, quick=True, registry=reg)
    text = (tmp_path / "report.md").read_text()
    # Both sections, in seed order, each with its figure, table and claim; only the
    # second says --quick.
    assert text.index("## Seed 000") < text.index("## Seed 004")
    for name in ("satellite", "manet"):
        assert f"![{name} figure]({name}/fig.png)" in text
        assert f"**{name} table**" in text and f"- {name} claim holds" in text
    sat, man = text.split("## Seed 004")
    assert "--quick" not in sat.split("## Seed 000")[1] and "--quick" in man
    # Running the first again replaces its section, not duplicates it.
    report.reproduce(["satellite"], tmp_path, registry=reg)
    assert (tmp_path / "report.md").read_text().count("## Seed 000") == 1
    assert "## Seed 004" in (tmp_path / "report.md").read_text()


def test_a_failed_study_replaces_its_section_and_keeps_the_others(tmp_path: Path) -> None:
    jobs: list[int | None] = []

    def broken(out: Path, quick: bool) -> StudyResult:
        raise pool.RunFailed("run x=1 seed 2 failed: boom")

    report.reproduce(
        ["satellite"], tmp_path, registry={"satellite": _study("satellite", "Seed 000", jobs)}
    )
    report.reproduce(
        ["satellite", "manet"],
        tmp_path,
        registry={"satellite": broken, "manet": _study("manet", "Seed 004", jobs)},
    )
    text = (tmp_path / "report.md").read_text()
    assert "Failed: RunFailed: run x=1 seed 2 failed: boom" in text
    assert "satellite claim holds" not in text and "## Seed 004" in text


def test_tables_and_data_csv_end_lines_in_lf(tmp_path: Path) -> None:
    report.reproduce(["satellite"], tmp_path, registry={"satellite": _study("satellite", "S", [])})
    for name in ("data.csv", "table.csv", "table.md"):
        raw = (tmp_path / "satellite" / name).read_bytes()
        assert b"\r" not in raw and raw.endswith(b"\n"), name
    assert (tmp_path / "satellite" / "data.csv").read_text().splitlines()[
        1
    ] == "i,s,x,1,m,1.5,0.25,3,"


def test_reproduce_jobs_reaches_the_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jobs: list[int | None] = []
    monkeypatch.setattr(report, "studies", lambda: {"newreno": _study("newreno", "Seed 002", jobs)})
    r = CliRunner().invoke(cli, ["reproduce", "newreno", "--jobs", "1", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["reproduce", "newreno", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert jobs == [1, None]
    assert pool._jobs is None


def test_prose_helpers() -> None:
    from sctplab.reproduce import prose

    assert prose.join([]) == "" and prose.join([1]) == "1"
    assert prose.join(["a", "b", "c"]) == "a, b and c"
    assert prose.pairs({"tcp": 20220.4, "sctp": 16266.0}) == "tcp 20,220 and sctp 16,266"
    assert [prose.sig3(v) for v in (1210.4, 175.2, 64.31, 0.04132, 0.0)] == [
        "1,210",
        "175",
        "64.3",
        "0.0413",
        "0",
    ]
    # Seed 001's "about 10 %" and "about 35 %": within a quarter, or inside our interval.
    assert prose.by_number(9.8, 10.0) == "holds"
    assert prose.by_number(30.0, 35.0) == "holds"
    assert prose.by_number(20.0, 35.0) == "partly"
    assert prose.by_number(5.0, 10.0, ci=6.0) == "holds"
    assert prose.by_number(-3.0, 10.0) == "differs"
    assert [prose.by_count(h, 4) for h in (4, 2, 0)] == ["holds", "partly", "differs"]
