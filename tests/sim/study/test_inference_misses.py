"""``mc``'s inferred and shown opponent models fall back, and a study says so once.

Where none of ``INFER_TRIES`` deals of an opponent's hand fits what it showed, the last
deal stands (``kernels.mc.determinize``). Each chunk counts those deals in its summary
(``inference_misses``), the study notes the total once, and the count is a pure
function of the run: the same on any chunk size or worker count, and the same as the
plain count of the hands played in one piece."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import numpy as np
import pytest

from kernels import mc as K
from kernels.obs import PHASE_DRAW
from sim.engine import play_deals
from sim.study.execute import Executor, execute
from sim.study.rundir import load_summary
from sim.study.runs import RunConfig
from strategies.mc import inference_misses
from tests.kernels.test_mc import random_position
from tests.reference import mc_ref as R
from tests.reference import strategies_ref as S
from tests.support.twins import fast_solver

SHOWN = "mc:samples=6,model=3,opponents=policy"  # the policy's rollouts: kernels.mc.evaluate
SHOWN_BOUND = "mc:samples=6,model=3,opponents=greedy"  # the engine of strategies'


@pytest.mark.parametrize("model", [K.MODEL_KEPT, K.MODEL_INFERRED, K.MODEL_SHOWN])
def test_the_kernel_counts_the_misses_its_twin_counts(
    model: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Positions whose opponent threw many cards at random: the inferred and shown
    models rarely find a hand that fits, and count each deal that kept the last try;
    the kept model never tries again, so never misses."""
    monkeypatch.setattr(S, "SOLVER", fast_solver)
    for seed in range(2):
        pos = random_position(random.Random(seed), "gin", PHASE_DRAW, taken=0, pile_n=20)
        obs, ref = pos["obs"], pos["ref"]
        hidden = K.hidden_cards(obs)
        work = K.new_work(2)
        work.misses[0] = 0
        for j in range(25):
            K.determinize(obs, hidden, np.uint64(j), model, work)
        twin = sum(R.determinize(ref, j, model)[2] for j in range(25))
        assert int(work.misses[0]) == twin
        if model == K.MODEL_KEPT:
            assert twin == 0
        else:
            assert twin > 0
        # evaluate returns the count of the samples it played
        kinds = np.array([K.ACT_TAKE, K.ACT_DRAW], np.int64)
        cards = np.array([-1, -1], np.int64)
        net = np.zeros((2, 5))
        won = np.zeros((2, 5), np.int8)
        ends = np.zeros((2, 5), np.int8)
        misses = K.evaluate(obs, kinds, cards, np.uint64(seed), 0, model, -1, 1, net, won, ends,
                            K.new_inference())  # fmt: skip
        _, _, _, ref_misses = R.evaluate(ref, [(K.ACT_TAKE, -1), (K.ACT_DRAW, -1)], seed, 0, 5,
                                         model, -1, 1)  # fmt: skip
        assert misses == ref_misses


def _misses(run_dir: Path) -> int:
    summary = load_summary(run_dir)
    rows = summary.filter(summary["stat"] == "inference_misses")
    return sum(int(v) for v in rows["value"])


@pytest.mark.parametrize("lineup", [(SHOWN, "greedy"), (SHOWN_BOUND, "greedy")])
def test_a_study_counts_its_misses_and_says_so_once(tmp_path: Path, lineup) -> None:
    config = RunConfig(experiment="a", rules="gin", lineup=lineup, count=24, seed=3,
                       chunk_size=8, out=tmp_path / "a", command="pytest")  # fmt: skip
    inference_misses()
    play_deals("gin", list(lineup), deals=24, seed=3, threads=1)
    plain = inference_misses()  # the hands played in one piece, counted as they play
    assert plain > 0
    swapped = dataclasses.replace(config, lineup=lineup[::-1], out=tmp_path / "b")
    first, second = execute([config, swapped], Executor(workers=2))
    assert _misses(first.run_dir) == plain
    total = plain + _misses(second.run_dir)
    notes = {note for r in (first, second) for note in r.notes if "fit nothing" in note}
    assert notes == {
        f"{total:,} sampled opponent hands fit nothing the opponent showed in "
        f"{K.INFER_TRIES} deals ({K.PLAYED_TRIES} under the played model) and kept the last "
        "deal, or under the history model were dealt by the rules' model (mc's inferred, "
        "shown, played or history model, the shown one its default in Knock Rummy: docs/MC.md)"
    }
    # another chunk size and worker count: the same count
    other = dataclasses.replace(config, chunk_size=24, out=tmp_path / "c")
    assert _misses(execute([other], Executor(workers=1))[0].run_dir) == plain


def test_a_study_whose_models_never_infer_notes_nothing(tmp_path: Path) -> None:
    config = RunConfig(experiment="a", rules="gin", lineup=("mc:samples=6", "greedy"),
                       count=8, seed=3, out=tmp_path, command="pytest")  # fmt: skip
    (result,) = execute([config], Executor(workers=1))
    assert not any("fit nothing" in note for note in result.notes)
    assert _misses(result.run_dir) == 0


def test_the_command_and_the_notebook_say_the_same_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    import rummy
    from sim.cli import app

    played = rummy.play(f"{SHOWN}/greedy", deals=24, seed=3, out=tmp_path / "a", progress=False)
    (note,) = [n for n in played.notes if "fit nothing" in n]
    assert note in " ".join(repr(played).split())
    command = CliRunner().invoke(
        app,
        [
            "run",
            "--seats",
            f"{SHOWN}/greedy",
            "--deals",
            "24",
            "--seed",
            "3",
            "--out",
            str(tmp_path / "b"),
            "-w",
            "1",
        ],
    )
    assert command.exit_code == 0, command.output
    assert f"note: {note}" in " ".join(command.stderr.split())
