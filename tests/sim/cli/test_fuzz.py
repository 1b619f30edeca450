"""A property-based fuzzer of the command line: no value ever gives a traceback.

Every command starts from a small valid invocation; hypothesis then replaces a few of
its options (or adds others) with values a hostile but realistic user could type:
huge, negative, NaN, infinite, empty, non-ASCII, malformed ranges and rule overrides.
Every invocation must end with exit status 0 (done), 1 (a bad value or file) or 2 (a
malformed command line), never a traceback (status 3 is a bug), and everything printed
with ``--json`` must parse with a strict parser (no bare NaN).

Counts that set how much work a command does (deals, games, samples) are drawn only
from small, invalid or out-of-range values, so that an accepted value never starts an
hour-long run. The default suite plays a fixed slice (derandomized); ``-m slow`` plays
many more examples from a random start.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from sim.cli import app

HOSTILE = [
    "", " ", "0", "-1", "1", "2", "7", "10", "-0", "+3", "0x10", "1_000", "1e3",
    "99999999999999999999999", "-99999999999999999999", "9223372036854775807",
    "9223372036854775808", "nan", "NaN", "inf", "-inf", "1e-300", "1e300", "0.5", "-0.5",
    "x", "é", "♠", "🂡", "٣", "JK", "JK JK", "JK JK JK", "AS AS", "10h", "q♠", "AS,2S;3S",
    "gin", "knock-rummy", "eaai", "greedy", "simple", "mc:samples=0", "random:p=2",
    "greedy:knock_at=99999999999999999999", "greedy:nosuch=1", "greedy:knock_at=nan",
    "greedy/simple/greedy", "k=0..1:0.1", "k=0..10000000", "k=1,1", "k=", "=1", "k={k}",
    "rule.undercut_bonus=99999999999999999999", "undercut_bonus=9223372036854775807",
    "gin_bonus=-1", "players=7", "game=gin:0", "knock_limit=upcard", "jokers=2",
    "/", "..", ".hidden", "{k}", "a b", "-", "--", "results",
]  # fmt: skip
# Counts that set how much work runs: small, invalid or over the limit, never a huge
# valid number (that would start a run of years).
COUNTS = [
    "", "0", "-1", "1", "2", "3", "x", "nan", "1e3", "-0", "٣",
    "99999999999999999999999", "9223372036854775808", "18446744073709551616",
]  # fmt: skip

# Where output may go: nothing that would write outside the test's folder (no "/"), but
# every kind of URI a user could try; a store that answers must never be needed.
OUT_VALUES = [
    "", " ", ".", "..", "x", "a b", "é", "out/", "gs://bucket/prefix", "hdfs://host/p",
    "ftp://host/p", "http://example.invalid/p", "s3://bucket/p?secret_key=SEKRIT",
    "s3://KEY:SEKRIT@bucket/p", "s3://bucket/p?nosuch=1", "file:///nonexistent/deeper/x",
    "s3://", "s3:///p", "://", "file://",
]  # fmt: skip
# Seat specs, chart masks included: out of range, malformed, repeated, unknown turns.
SEATS = [
    "greedy", "greedy/simple", "chart:k1=1", "chart:k1=-1", "chart:k1=2147483648",
    "chart:t1=256", "chart:t1=-1", "chart:safety=4503599627370496", "chart:safety=-1",
    "chart:k0=1", "chart:k99999999999999999999=1", "chart:k1=1,k1=2", "chart:k1=nan",
    "chart:t1=0x10", "chart:safety=1.5", "chart:", "chart:k1", "chart:=1", "chart:q1=1",
    "chart:k1=1/chart:t1=128", "mc:samples=99999999999999999999", "greedy:knock_at=-1",
]  # fmt: skip
# Sizes of benchmarks: past every limit as well as small (a refused one runs nothing).
BENCH_SIZES = [*COUNTS, "1000000000000000", "9223372036854775807", "20000001"]
PATH_OPTIONS = {"--out", "--name", "--draw", "--discard", "--resume"}

GIN_HAND_A = "AC 2C 3C 4D 5D 6D 9H 9S 9C 2S"
GIN_HAND_B = "TD JD QD KD 5S 6S 7S 8H 2H 3H"
ADVISE_HAND = "9C 9D 9H JS QS KS AD 4D 2H 3S JC"


def base_commands(
    out: str, run_dir: str, chart_dir: str
) -> dict[str, tuple[list[str], dict[str, list[str]]]]:
    """Per command: a small valid invocation, and which options take counts."""
    chart = ["--rules", "gin", "--seats", "greedy", "--deals", "10", "--samples", "2",
             "--seed", "1", "--out", out, "-w", "1"]  # fmt: skip
    chart_counts = {"--deals": COUNTS, "--samples": COUNTS, "--per-cell": COUNTS,
                    "--turns": COUNTS, "--check-deals": COUNTS, "--chunk-size": COUNTS}  # fmt: skip
    return {
        "strategy-chart draw": (["strategy-chart", "draw", *chart], chart_counts),
        "strategy-chart discard": (["strategy-chart", "discard", *chart], chart_counts),
        "strategy-chart export": (["strategy-chart", "export", chart_dir], {}),
        "bench deadwood": (["bench", "deadwood", "--hands", "200"], {"--hands": BENCH_SIZES}),
        "bench engine": (
            ["bench", "engine", "--deals", "20", "--repeat", "1"],
            {"--deals": BENCH_SIZES, "--repeat": BENCH_SIZES, "--threads": BENCH_SIZES},
        ),
        "resume": (["run", "--resume", run_dir], {}),
        "deadwood": (["deadwood", "5C", "6C", "7C", "KD", "--rules", "gin"], {}),
        "score": (
            [
                "score",
                "--rules",
                "gin",
                "--knocker",
                "0",
                "--hand",
                GIN_HAND_A,
                "--hand",
                GIN_HAND_B,
            ],
            {},
        ),
        "replay": (
            ["replay", "--rules", "gin", "--seats", "greedy/simple", "--seed", "1", "--deal", "3"],
            {"--game": COUNTS},
        ),  # fmt: skip
        "advise": (
            [
                "advise",
                "--rules",
                "gin",
                "--hand",
                ADVISE_HAND,
                "--pile",
                "5S KC 7D 8H 2C",
                "--samples",
                "20",
            ],
            {"--samples": COUNTS},
        ),  # fmt: skip
        "run": (
            [
                "run",
                "--rules",
                "gin",
                "--seats",
                "greedy/simple",
                "--deals",
                "30",
                "--seed",
                "1",
                "--out",
                out,
                "--chunk-size",
                "10",
                "-w",
                "1",
            ],
            {"--deals": COUNTS, "--games": COUNTS, "--max-count": COUNTS},
        ),  # fmt: skip
        "sweep": (
            [
                "sweep",
                "--seats",
                "greedy:knock_at={k}/simple",
                "--grid",
                "k=1,2",
                "--deals",
                "20",
                "--seed",
                "1",
                "--out",
                out,
                "-w",
                "1",
            ],
            {"--deals": COUNTS, "--games": COUNTS, "--max-count": COUNTS},
        ),  # fmt: skip
        "chart": (["chart", run_dir, "--kind", "outcome-mix"], {}),
        "report": (["report", run_dir], {}),
        "compare": (
            [
                "compare",
                "--rules",
                "gin",
                "--seats",
                "greedy/simple",
                "--vs-seats",
                "simple/simple",
                "--deals",
                "20",
                "--seed",
                "1",
                "--out",
                out,
                "--workers",
                "1",
            ],
            {"--deals": COUNTS, "--games": COUNTS},
        ),  # fmt: skip
        "tournament": (
            [
                "tournament",
                "-s",
                "greedy,simple",
                "--rules",
                "gin",
                "--deals",
                "10",
                "--seed",
                "1",
                "--out",
                out,
                "--workers",
                "1",
            ],
            {"--deals": COUNTS, "--games": COUNTS},
        ),  # fmt: skip
        "tune": (
            [
                "tune",
                "greedy",
                "--param",
                "knock_at=1,2",
                "--against",
                "simple",
                "--rules",
                "gin",
                "--deals",
                "20",
                "--confirm",
                "20",
                "--seed",
                "1",
                "--out",
                out,
                "-w",
                "1",
            ],
            {"--deals": COUNTS, "--games": COUNTS, "--confirm": COUNTS, "--max-evals": COUNTS},
        ),  # fmt: skip
        "strategy-chart knock": (
            [
                "strategy-chart",
                "knock",
                "--rules",
                "gin",
                "--seats",
                "greedy",
                "--deals",
                "10",
                "--samples",
                "2",
                "--seed",
                "1",
                "--out",
                out,
                "-w",
                "1",
            ],
            {"--deals": COUNTS, "--samples": COUNTS},
        ),  # fmt: skip
        "rules show": (["rules", "show", "gin"], {}),
        "rules list": (["rules", "list"], {}),
        "stats deadwood": (
            ["stats", "deadwood", "--cards", "7", "--samples", "200", "--seed", "1"],
            {"--samples": COUNTS, "--cards": COUNTS},
        ),
        "strategies show": (["strategies", "show", "greedy"], {}),
    }


# The options each command takes, from its own --help (kept in step by a test below).
OPTIONS = {
    "deadwood": ["--rules", "--rule", "--json"],
    "score": ["--hand", "--knocker", "--rules", "--rule", "--upcard", "--dealer", "--json"],
    "replay": ["--seats", "--seed", "--deal", "--game", "--rules", "--rule", "--json"],
    "advise": ["--hand", "--pile", "--took", "--discarded", "--stock", "--turn", "--scores",
               "--seat", "--dealer", "--upcard", "--just-took", "--upcard-option", "--rules",
               "--rule", "--samples", "--time", "--seed", "--model", "--knock-at", "--json"],
    "run": ["--rules", "--rule", "--seats", "--deals", "--games", "--seed", "--workers", "--out",
            "--name", "--backend", "--rows", "--precision", "--max-count", "--duplicate",
            "--headline", "--chunk-size", "--resume", "--json"],
    "sweep": ["--seats", "--grid", "--rules", "--rule", "--deals", "--games", "--seed",
              "--duplicate", "--headline", "--precision", "--max-count", "--workers", "--out",
              "--name", "--rows", "--chunk-size", "--json"],
    "chart": ["--kind", "--out"],
    "report": ["--out"],
    "compare": ["--seats", "--rules", "--rule", "--vs-seats", "--vs-rules", "--vs-rule",
                "--label", "--vs-label", "--deals", "--games", "--duplicate", "--seed",
                "--workers", "--out", "--json"],
    "tournament": ["--strategies", "--rules", "--rule", "--deals", "--games", "--seed",
                   "--workers", "--out", "--json"],
    "tune": ["--param", "--against", "--rules", "--rule", "--deals", "--games", "--duplicate",
             "--max-evals", "--search", "--confirm", "--seed", "--workers", "--out", "--json"],
    "strategy-chart knock": ["--seats", "--rules", "--rule", "--players", "--deals", "--seat",
                             "--samples", "--per-cell", "--turns", "--took",
                             "--min-positions", "--seed", "--workers", "--out",
                             "--name", "--chunk-size", "--json"],
    "rules show": ["--rule", "--json"],
    "rules list": ["--json"],
    "stats deadwood": ["--cards", "--exact", "--samples", "--seed", "--rules", "--rule",
                       "--json"],
    "strategies show": ["--json"],
    "strategy-chart draw": ["--seats", "--rules", "--rule", "--players", "--deals", "--seat",
                            "--samples", "--per-cell", "--turns", "--took", "--min-positions",
                            "--check-deals", "--check-cell", "--seed", "--workers", "--out",
                            "--name", "--chunk-size", "--json"],
    "strategy-chart discard": ["--seats", "--rules", "--rule", "--players", "--deals",
                               "--seat", "--took", "--min-positions", "--seed", "--workers",
                               "--out", "--name", "--chunk-size", "--json"],
    "strategy-chart export": ["--draw", "--discard", "--out", "--min-positions", "--json"],
    "bench deadwood": ["--hands", "--json"],
    "bench engine": ["--deals", "--repeat", "--threads", "--json"],
    "resume": ["--resume", "--workers", "--json"],
}  # fmt: skip
FLAGS = {"--json", "--duplicate", "--upcard-option", "--exact", "--took"}
SAFE_FLAGS = FLAGS - {"--exact"}  # exact enumeration of 10-card hands takes minutes


def _strict(text: str) -> object:
    def refuse(constant: str) -> object:
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> tuple[str, str]:
    """A results folder, one small finished run to chart and report, and a knock chart's
    run to export."""
    root = tmp_path_factory.mktemp("fuzz")
    out = str(root / "out")
    done = CliRunner().invoke(
        app,
        ["run", "--rules", "gin", "--seats", "greedy/simple", "--deals", "40", "--seed", "3",
         "--out", out, "--name", "fixed", "-w", "1", "--json"],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    chart = CliRunner().invoke(
        app,
        ["strategy-chart", "knock", "--rules", "gin", "--seats", "greedy", "--deals", "40",
         "--samples", "2", "--seed", "3", "--out", out, "--name", "knock", "-w", "1",
         "--json"],
    )  # fmt: skip
    assert chart.exit_code == 0, chart.output
    return out, json.loads(done.stdout)["run_dir"], json.loads(chart.stdout)["run_dir"]


def invocation(draw: st.DrawFn, out: str, run_dir: str, chart_dir: str) -> list[str]:
    commands = base_commands(out, run_dir, chart_dir)
    name = draw(st.sampled_from(sorted(commands)))
    args, counts = commands[name]
    args = list(args)
    options = OPTIONS[name]
    for _ in range(draw(st.integers(1, 3))):
        option = draw(st.sampled_from(options))
        if option in FLAGS:
            if option in SAFE_FLAGS:
                args.append(option)
            continue
        pool = OUT_VALUES if option in PATH_OPTIONS else SEATS if "seats" in option else HOSTILE
        value = draw(st.sampled_from(counts.get(option, pool)))
        if option in args and draw(st.booleans()):
            args[args.index(option) + 1] = value  # replace the valid value
        else:
            args += [option, value]
    if draw(st.booleans()) and "--json" in options:
        args.append("--json")
    return args


def check(args: list[str]) -> None:
    result = CliRunner().invoke(app, args)
    shown = " ".join(repr(a) if not a or " " in a else a for a in args)
    assert result.exit_code in (0, 1, 2), f"rummy {shown}\n{result.output}"
    assert "Traceback" not in result.output, f"rummy {shown}\n{result.output}"
    if result.exit_code != 0:
        lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert len(lines) == 1, f"rummy {shown}: not one error line\n{result.stderr}"
    elif "--json" in args:
        _strict(result.stdout)


@st.composite
def invocations(draw: st.DrawFn, out: str, run_dir: str, chart_dir: str) -> list[str]:
    return invocation(draw, out, run_dir, chart_dir)


def _fuzz(workspace: tuple[str, str, str], examples: int, derandomize: bool) -> None:
    out, run_dir, chart_dir = workspace

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=derandomize,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(invocations(out, run_dir, chart_dir))
    def run_one(args: list[str]) -> None:
        check(args)

    cwd = os.getcwd()
    os.chdir(Path(out).parent)  # anything written by default lands in the tmp folder
    try:
        run_one()
    finally:
        os.chdir(cwd)


def test_fuzz_fast_slice(workspace) -> None:
    _fuzz(workspace, examples=60, derandomize=True)


@pytest.mark.slow
def test_fuzz_many(workspace) -> None:
    _fuzz(workspace, examples=1_500, derandomize=False)


def test_option_tables_match_the_commands() -> None:
    import typer.main

    group = typer.main.get_command(app)
    for name, options in OPTIONS.items():
        command = group
        # The commands load lazily: ask each group for its own.
        for part in {"resume": "run"}.get(name, name).split():
            context = command.context_class(command)  # type: ignore[attr-defined]
            command = command.get_command(context, part)  # type: ignore[attr-defined]
        declared = {o for p in command.params for o in p.opts if o.startswith("--")}
        assert set(options) <= declared, (name, set(options) - declared)


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--deals", "99999999999999999999999"],
        ["run", "--rule", "undercut_bonus=9223372036854775807", "--deals", "5"],
        ["sweep", "--seats", "greedy:knock_at={k}", "--grid", "k=0..10000000", "--deals", "5"],
        ["advise", "--rules", "gin", "--hand", ADVISE_HAND, "--pile", "5S", "--knock-at",
         "99999999999999999999"],
        ["advise", "--rules", "gin", "--hand", ADVISE_HAND, "--pile", "5S", "--time", "nan"],
        ["advise", "--rules", "gin", "--hand", ADVISE_HAND, "--pile", "5S", "--turn", "-5"],
        ["advise", "--rules", "gin", "--hand", ADVISE_HAND, "--pile", "5S", "--turn", "1000"],
        ["deadwood", ""],
        ["run", "--out", "", "--deals", "5"],
        ["run", "--rows", "maybe"],
        ["chart", ".", "--kind", "nosuch"],
        ["nosuch"],
        ["run", "--nosuch"],
    ],
)  # fmt: skip
def test_reported_cases_are_one_line_errors(workspace, args) -> None:
    out = workspace[0]
    result = CliRunner().invoke(app, [*args, *(["--out", out] if args[0] == "sweep" else [])])
    assert result.exit_code in (1, 2), result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert result.output.startswith("error: ")


# --- records: a flipped byte is refused or changes nothing -----------------------------


@pytest.fixture(scope="module")
def studies(workspace, tmp_path_factory) -> dict[str, Path]:
    """One finished study of every kind that writes a record, beside the run and the
    knock chart of ``workspace``."""
    out, run_dir, chart_dir = workspace
    root = tmp_path_factory.mktemp("records")
    common = ["--rules", "gin", "--seed", "2", "--workers", "1", "--json"]
    made = {"run": Path(run_dir), "knock chart": Path(chart_dir)}
    for kind, args in {
        "sweep": ["sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=1,2",
                  "--deals", "20"],
        "compare": ["compare", "--seats", "greedy/simple", "--vs-seats", "simple/simple",
                    "--deals", "20"],
        "tournament": ["tournament", "-s", "greedy,simple", "--deals", "10"],
        "tune": ["tune", "greedy", "--param", "knock_at=1,2", "--against", "simple",
                 "--deals", "20", "--confirm", "20"],
    }.items():  # fmt: skip
        folder = root / kind
        done = CliRunner().invoke(app, [*args, *common, "--out", str(folder)])
        assert done.exit_code == 0, (kind, done.output)
        made[kind] = next(p.parent for name in STUDY_RECORDS for p in folder.rglob(name))
    return made


STUDY_RECORDS = ("experiment.json", "comparison.json", "tournament.json", "tune.json")


def _report(folder: Path, tmp: Path) -> tuple[int, str, bytes]:
    """``rummy report``: what a user reads of a run, a sweep or a chart's run."""
    html = tmp / "report.html"
    result = CliRunner().invoke(app, ["report", str(folder), "--out", str(html)])
    body = html.read_bytes() if html.exists() else b""
    html.unlink(missing_ok=True)
    # The footer says when it was made (to the minute): the only thing that may differ.
    return result.exit_code, result.stderr, re.sub(rb"Generated [^<]*? UTC", b"", body)


def _loader(load: Callable[[Path], Any]) -> Callable[[Path, Path], tuple[int, str, bytes]]:
    """A study's Python loader, as (status, error line, what it returned)."""

    def read(folder: Path, tmp: Path) -> tuple[int, str, bytes]:
        try:
            return 0, "", json.dumps(load(folder), sort_keys=True).encode()
        except ValueError as error:  # RecordError, ResultsError: one line
            return 1, f"error: {error}", b""

    return read


def _readers() -> dict[str, tuple[Callable[[Path, Path], tuple[int, str, bytes]], str]]:
    """Per kind of study: its reader, and the records it reads ("**/*.json": all)."""
    from sim.study.compare import load_comparison
    from sim.study.records import load_record
    from sim.study.tournament import TOURNAMENT_FILE, TOURNAMENT_KIND
    from sim.study.tune import load_tune

    def tournament(folder: Path) -> Any:
        return load_record(folder / TOURNAMENT_FILE, TOURNAMENT_KIND)

    return {
        "run": (_report, "**/*.json"),
        "knock chart": (_report, "**/*.json"),
        "sweep": (_report, "**/*.json"),
        "compare": (_loader(load_comparison), "comparison.json"),
        "tournament": (_loader(tournament), TOURNAMENT_FILE),
        "tune": (_loader(load_tune), "*.json"),
    }


def _flips(examples: int, derandomize: bool, studies: dict[str, Path], tmp: Path) -> None:
    readers = _readers()
    clean = {kind: readers[kind][0](folder, tmp) for kind, folder in studies.items()}
    for kind, (status, stderr, _) in clean.items():
        assert status == 0, (kind, stderr)

    @settings(max_examples=examples, deadline=None, derandomize=derandomize, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(st.sampled_from(sorted(studies)), st.data())
    def flip_one(kind: str, data: st.DataObject) -> None:
        folder = studies[kind]
        read, pattern = readers[kind]
        record = data.draw(st.sampled_from(sorted(folder.glob(pattern))), label="record")
        original = record.read_bytes()
        offset = data.draw(st.integers(0, len(original) - 1), label="offset")
        bit = data.draw(st.integers(0, 7), label="bit")
        flipped = bytearray(original)
        flipped[offset] ^= 1 << bit
        record.write_bytes(bytes(flipped))
        try:
            status, stderr, body = read(folder, tmp)
        finally:
            record.write_bytes(original)
        where = f"{kind}: {record.relative_to(folder)} byte {offset} bit {bit}"
        assert status in (0, 1), f"{where}: exit {status}\n{stderr}"
        assert "Traceback" not in stderr, f"{where}\n{stderr}"
        if status == 0:  # a byte nothing reads (a chunk record the report never opens)
            assert body == clean[kind][2], f"{where}: read differently with exit 0"
        else:
            lines = [line for line in stderr.splitlines() if line.strip()]
            assert len(lines) == 1 and lines[0].startswith("error: "), f"{where}\n{stderr}"

    flip_one()


def test_record_flips_fast_slice(studies, tmp_path) -> None:
    _flips(8, True, studies, tmp_path)


@pytest.mark.slow
def test_record_flips_many(studies, tmp_path) -> None:
    _flips(300, False, studies, tmp_path)


def test_resume_plays_nothing_a_damaged_record_does_not_say(workspace, tmp_path) -> None:
    """Every byte flip of a run's manifest or chunk record, then ``--resume``: refused in
    one line, or the run's hands afterwards are exactly the hands before (a damaged
    chunk record makes its chunk play again, to the same rows)."""
    import shutil

    from sim.study import load_hands

    source = Path(workspace[1])
    before = load_hands(source).collect()
    for record in [source / "manifest.json", *sorted((source / "chunks").glob("*.json"))]:
        size = record.stat().st_size
        for offset in range(0, size, max(1, size // 12)):
            run = tmp_path / f"{record.stem}-{offset}"
            shutil.copytree(source, run)
            target = run / record.relative_to(source)
            flipped = bytearray(target.read_bytes())
            flipped[offset] ^= 0x04
            target.write_bytes(bytes(flipped))
            result = CliRunner().invoke(app, ["run", "--resume", str(run), "-w", "1"])
            where = f"{record.name} byte {offset}"
            assert result.exit_code in (0, 1), f"{where}\n{result.output}"
            if result.exit_code == 1:
                errors = [line for line in result.stderr.splitlines() if line.strip()]
                assert len(errors) == 1 and errors[0].startswith("error: "), where
                assert target.read_bytes() == bytes(flipped), f"{where}: changed on refusal"
            else:
                assert load_hands(run).collect().equals(before), f"{where}: other hands"
