"""The report's answer names who played whom and, for games, the games won: each figure
a plain recount from the game rows of the same folder."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
from typer.testing import CliRunner

import rummy
from sim.cli import app
from sim.present.experiment import answers, best_moves
from sim.study import load_results
from sim.study.rundir import load_games

SEATS = "greedy:knock_at=7/simple"


def _games_claimed(sentence: str) -> tuple[int, int]:
    found = re.search(r"of games \(([\d,]+) of ([\d,]+)\)", sentence)
    assert found, sentence
    return int(found[1].replace(",", "")), int(found[2].replace(",", ""))


def test_a_runs_answer_names_the_opponents_and_recounts_the_games_won(tmp_path: Path) -> None:
    played = rummy.play(SEATS, rules="eaai", games=30, seed=11, out=tmp_path, progress=False)
    rows = load_games(played.directory).collect()
    said = answers(load_results(played.directory))
    assert said[0].startswith("Seat 0 (greedy:knock_at=7) against simple scores")
    assert said[1].startswith("Seat 1 (simple) against greedy:knock_at=7 scores")
    for seat, sentence in enumerate(said):
        assert _games_claimed(sentence) == (int((rows["winner"] == seat).sum()), 30)


def test_a_duplicate_runs_answer_counts_every_seatings_games(tmp_path: Path) -> None:
    study = rummy.play(SEATS, rules="eaai", games=15, seed=12, duplicate=True, out=tmp_path,
                       progress=False)  # fmt: skip
    [sentence] = answers(study.raw)
    assert "seat 0 (greedy:knock_at=7) against simple" in sentence
    won = played = 0
    for run in study.raw.runs.iter_rows(named=True):  # one run per seating
        games = load_games(run["run_dir"]).collect()
        seat = 0 if run["rotation"] == 0 else 1  # where greedy sat in that seating
        won += int((games["winner"] == seat).sum())
        played += games.height
    assert _games_claimed(sentence) == (won, played) and played == 30
    assert study.raw.runs.height == 2 and pl.Series(study.raw.runs["rotation"]).n_unique() == 2


def test_one_sentence_says_where_the_best_moves_with_the_rules(tmp_path: Path) -> None:
    """Under gin (25-point bonuses) greedy's best threshold is 0; under gin-classic's
    10-point bonuses it is the limit: the sentence names each group's best as its verdict
    does (a recount from the verdicts), and the terminal prints it too."""
    study = rummy.sweep("greedy:knock_at={k}/simple", {"k": [0, 10]}, rules=["gin", "gin-classic"],
                        deals=3000, seed=4, out=tmp_path, progress=False)  # fmt: skip
    best = {g: study.best(g).setting.split(", ")[-1] for g in study.groups}
    assert best == {"gin": "k=0", "gin-classic": "k=10"}
    [sentence] = best_moves(study.raw)
    assert (
        sentence == "The best setting moves with the rules: k=0 under gin, k=10 under gin-classic."
    )
    assert sentence in answers(study.raw)
    result = CliRunner().invoke(app, [
        "sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=0,10", "--rules", "gin",
        "--rules", "gin-classic", "--deals", "3000", "--seed", "4", "--out", str(tmp_path / "cli"),
    ], env={"COLUMNS": "200"})  # fmt: skip
    assert result.exit_code == 0, result.output
    assert sentence in " ".join(result.stdout.split())
