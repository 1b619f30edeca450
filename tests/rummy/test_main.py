"""``python -m rummy`` is the ``rummy`` command, and its shell completion works.

Each check runs a fresh interpreter (as a user's shell would) from the repository root.
"""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support import ROOT


def _rummy(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "rummy", *args],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_python_m_rummy_runs_the_command() -> None:
    done = _rummy("--version")
    assert done.returncode == 0 and done.stdout.startswith("rummy ")
    done = _rummy("rules", "list")
    assert done.returncode == 0 and "gin-classic" in done.stdout
    helped = _rummy("--help")
    assert helped.returncode == 0 and helped.stdout.startswith("Usage: rummy ")


def test_python_m_rummy_keeps_the_exit_statuses_and_one_line_errors() -> None:
    for args, status, text in (
        (
            ["run", "--deals", "x"],
            2,
            "rummy run: Invalid value for '--deals'",
        ),  # a malformed command line
        (["rules", "show", "no-such-preset"], 1, "no-such-preset"),  # a value refused
        ([], 2, ""),  # no command: the help, exit 2
    ):
        done = _rummy(*args)
        assert done.returncode == status, (args, done.stderr)
        assert "Traceback" not in done.stderr
        if text:
            assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1
            assert text in done.stderr


def test_the_cards_command_loads_no_numba() -> None:
    """``strategy-chart card`` plays nothing: its group (and the chart commands' front it
    registers) must not load the engine."""
    code = "import sys, sim.cli.strategy_chart_cmd; print('numba' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.stdout.strip() == "False", done.stdout[-300:] + done.stderr[-300:]


def test_help_loads_no_numba_or_polars() -> None:
    code = (
        "import sys; sys.argv = ['rummy', '--help']\n"
        "import runpy\n"
        "try:\n    runpy.run_module('rummy', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in ('numba', 'polars') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.stdout.strip().endswith("[]"), done.stdout[-300:]


def test_shell_completion_script_and_answers() -> None:
    # The script for the shell that runs the command (bash here): it calls rummy back
    # with _RUMMY_COMPLETE set ... Typer finds the shell among the process's ancestors,
    # so bash must stay one: "; exit $?" keeps it from replacing itself with the command
    # (a suite started where no shell was within ten ancestors got "Shell not supported").
    script = subprocess.run(
        ["bash", "-c", f"'{sys.executable}' -m rummy --show-completion; exit $?"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert script.returncode == 0, script.stderr
    assert "complete -o default -F _rummy_completion rummy" in script.stdout
    assert "_RUMMY_COMPLETE=complete_bash" in script.stdout
    # ... which answers with the commands and options that match what is typed.
    commands = _rummy(env={"_RUMMY_COMPLETE": "complete_bash", "COMP_WORDS": "rummy ru",
                           "COMP_CWORD": "1"})  # fmt: skip
    assert commands.returncode == 0 and commands.stdout.split() == ["run", "rules"]
    options = _rummy(env={"_RUMMY_COMPLETE": "complete_bash", "COMP_WORDS": "rummy run --se",
                          "COMP_CWORD": "2"})  # fmt: skip
    assert options.stdout.split() == ["--seats", "--seed"]
