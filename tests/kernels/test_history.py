"""The history model: a seat's notes of the opponent's turns, and the hands made from them.

``kernels/history.py`` notes each turn of the opponent a seat sees (two players);
``kernels.mc.history_particles`` makes opponent hands that would have played every
noted turn. Checked here on hands replayed from the engine's log
(``benchmarks/bench_inference.py``): the notes against the turns the log shows, the true
hand against every noted turn, the kernel against its twin (``tests/reference/mc_ref.py``)
and every made hand against what the seat sees.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from kernels import engine as E
from kernels import mc as K
from kernels.history import (
    HISTORY_WORDS,
    MAX_NOTES,
    copy_notes,
    note_opponent_turn,
    note_own_discard,
    pack_note,
    unpack_note,
)
from kernels.obs import PHASE_DISCARD, SCRATCH_SIZE
from sim.engine import play_deals, replay_hand
from sim.rules import get_rules
from tests.reference import mc_ref as R
from tests.reference import strategies_ref as S
from tests.support import ROOT
from tests.support.twins import fast_solver

_SPEC = importlib.util.spec_from_file_location(
    "bench_inference_history", ROOT / "benchmarks" / "bench_inference.py"
)
assert _SPEC is not None and _SPEC.loader is not None
bench_inference = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench_inference)


def true_turns(replay: Any) -> list[tuple[int, int, int, int, int]]:
    """Seat 1's turns after seat 0's first discard, from the log: (offered, took,
    thrown, its hand before the draw, the card drawn)."""
    hand, turns, started = 0, [], False
    offered = drawn = -1
    took = 0
    for code, seat, card, extra in replay.events:
        if code == E.EV_DEAL and seat == 1:
            hand = extra
        elif code == E.EV_DISCARD and seat == 0:
            started, offered = True, card
        elif code in (E.EV_DRAW_PILE, E.EV_DRAW_STOCK) and seat == 1:
            before, drawn, took = hand, card, int(code == E.EV_DRAW_PILE)
            hand |= 1 << card
        elif code == E.EV_DISCARD and seat == 1:
            hand &= ~(1 << card)
            if started:
                turns.append((offered, took, card, before, drawn))
    return turns


def noted_positions(preset: str, deals: int, seats: str = "greedy") -> Iterator[Any]:
    """Seat 0's decisions before any rebuild, with its notes as ``mc`` keeps them
    (``note_opponent_turn`` at each decision, ``note_own_discard`` after each discard):
    (replay, view, obs, the notes' words)."""
    rules = get_rules(preset)
    for deal in range(deals):
        replay = replay_hand(rules, seats, seed=5, deal=deal)
        scratch = np.zeros(SCRATCH_SIZE, np.int64)
        for at, view, obs in bench_inference.decisions(replay, "both"):
            note_opponent_turn(obs, scratch)
            notes = np.zeros(HISTORY_WORDS, np.int64)
            copy_notes(scratch, notes)
            if obs.phase == PHASE_DISCARD:
                note_own_discard(obs, scratch, np.int64(replay.events[at][2]))
            if view.rebuilds == 0:
                yield replay, view, obs, notes


@pytest.mark.parametrize("preset", ["gin", "eaai", "oklahoma-gin"])
def test_the_notes_are_the_opponents_turns(preset: str) -> None:
    """At each decision the notes are the opponent's turns since this seat's first
    discard, as the log shows them (the oldest dropped past ``MAX_NOTES``)."""
    positions = with_notes = 0
    for replay, view, _, notes in noted_positions(preset, 30):
        positions += 1
        # the opponent's turns that ended before this decision: its discards so far
        done = true_turns(replay)[: max(0, view.discards[1] - _before_mine(replay))]
        done = done[max(0, len(done) - MAX_NOTES) :]
        noted = [unpack_note(int(notes[1 + 2 * i]))[:3] for i in range(int(notes[0]))]
        assert noted == [t[:3] for t in done], (replay.deal, positions)
        with_notes += bool(noted)
    assert with_notes > positions // 2


def _before_mine(replay: Any) -> int:
    """Seat 1's discards before seat 0's first one (the turns no note covers)."""
    count = 0
    for code, seat, _, _ in replay.events:
        if code == E.EV_DISCARD:
            if seat == 0:
                return count
            count += 1
    return count


def test_the_true_hand_plays_every_noted_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Against greedy opponents (the rollout policy, mc's model of them), the true hand
    before each noted turn, with the card truly drawn, takes or passes and throws as
    the note says (the twin's policy)."""
    monkeypatch.setattr(S, "SOLVER", fast_solver)
    checked = 0
    for replay, _, obs, notes in noted_positions("gin", 12):
        ref = S.RefObs(**{**_ref_fields(obs), "seat": 0})
        turns = true_turns(replay)
        for i in range(int(notes[0])):
            offered, took, thrown = unpack_note(int(notes[1 + 2 * i]))[:3]
            match = next(t for t in turns if t[:3] == (offered, took, thrown))
            hand = set(S.cards_of(match[3]))
            assert R.policy_turn_fits(ref, hand, offered, bool(took), match[4], thrown, -1, 1) == (
                True,
                True,
            )
            checked += 1
    assert checked > 200


def _ref_fields(obs: Any) -> dict[str, Any]:
    players = obs.players
    return {
        "players": players, "hand": int(obs.hand),
        "pile": [int(c) for c in obs.pile[: obs.pile_n]], "taken": [int(t) for t in obs.taken],
        "discarded": [int(d) for d in obs.discarded], "stock_n": obs.stock_n,
        "rebuilds": obs.rebuilds, "rebuilt": obs.rebuilt, "turn": obs.turn,
        "phase": int(obs.phase), "upcard": obs.upcard, "drawn": int(obs.drawn),
        "from_pile": bool(obs.from_pile), "dealer": obs.dealer,
        "rules": [int(v) for v in obs.rules], "scores": [0] * players,
    }  # fmt: skip


def made_hands(
    obs: Any, notes: np.ndarray, key: int, n: int = K.HISTORY_PARTICLES
) -> tuple[int, np.ndarray, Any]:
    """``history_particles`` (``n`` hands) on the rollout policy's engine: (its return,
    the hands, work)."""
    work = K.new_work(2)
    work.inference[K.INF_NOTES : K.INF_NOTES + HISTORY_WORDS] = notes
    engine = K.new_engine(2, 0, -1, 1)
    made = K.history_particles(obs, K.hidden_cards(obs), np.uint64(key), work, engine, n)
    return made, work.inference[K.INF_HANDS : K.INF_HANDS + max(made, 0)].copy(), work


def test_the_kernel_equals_its_twin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hand for hand, in order, with 64 hands, on positions with one to eight notes."""
    monkeypatch.setattr(S, "SOLVER", fast_solver)
    compared = 0
    for _, _, obs, notes in noted_positions("gin", 10):
        if not 1 <= notes[0] <= 8 or compared >= 16:
            continue
        key = 1000 + compared
        made, hands, _ = made_hands(obs, notes, key, 64)
        ref = S.RefObs(**{**_ref_fields(obs), "seat": 0})
        twin = R.history_hands(ref, [int(w) for w in notes], key, -1, 1, 64)
        assert made == (len(twin) if isinstance(twin, list) else twin)
        if made > 0:
            assert [int(h) for h in hands] == twin
        compared += 1
    assert compared == 16


def test_made_hands_fit_what_the_seat_sees() -> None:
    """Every hand holds the hand size, the pile cards the opponent still holds and
    hidden cards only; a sample dealt from one has the stock's size; with no notes the
    rules' model deals."""
    made_any = 0
    for _, _, obs, notes in noted_positions("eaai", 15):
        made, hands, work = made_hands(obs, notes, 7)
        hidden = int(K.hidden_cards(obs))
        taken = int(obs.taken[1])
        if notes[0] == 0:
            assert made == 0
            continue
        assert made == K.HISTORY_PARTICLES
        made_any += 1
        for h in hands:
            h = int(h)
            assert bin(h).count("1") == 10 and h & taken == taken and h & ~taken & ~hidden == 0
        work.inference[K.INF_STATE] = K.INF_MADE
        work.inference[K.INF_COUNT] = made
        for j in range(5):
            stock_n = K.deal_sample(obs, K.hidden_cards(obs), np.uint64(j), K.MODEL_HISTORY, work,
                                    K.new_engine(2, 0, -1, 1))  # fmt: skip
            assert stock_n == obs.stock_n
            assert int(work.base[1]) in {int(h) for h in hands}
    assert made_any > 50


def test_the_hands_share_more_cards_with_the_true_hand() -> None:
    """Against greedy opponents, the made hands share more of the opponent's unseen
    cards with its true hand than the kept model's deals, once it has noted turns."""
    shared = {K.MODEL_KEPT: 0, K.MODEL_HISTORY: 0}
    positions = 0
    for _, view, obs, notes in noted_positions("gin", 25):
        if notes[0] < 2:
            continue
        positions += 1
        true = int(view.hands[1]) & ~int(obs.taken[1])
        for model in shared:
            work = K.new_work(2)
            work.inference[K.INF_NOTES : K.INF_NOTES + HISTORY_WORDS] = notes
            engine = K.new_engine(2, 0, -1, 1)
            hidden = K.hidden_cards(obs)
            K.prepare_samples(obs, hidden, np.uint64(positions), model, work, engine)
            for j in range(10):
                K.deal_sample(obs, hidden, np.uint64(j), model, work, engine)
                shared[model] += bin(int(work.base[1]) & true).count("1")
    assert positions > 100
    assert shared[K.MODEL_HISTORY] > 1.05 * shared[K.MODEL_KEPT]


def _same(a: Any, b: Any) -> None:
    for name in a._fields:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.mark.parametrize("opponents", ["policy", "known"])
def test_mc_by_history_is_the_same_on_any_thread_count(opponents: str) -> None:
    """In play (the policy's rollouts, and a bound line-up's), ``mc`` takes its notes
    and replays them: the deals play the same on one thread and two, and not as the
    rules' model plays them."""
    seats = f"mc:samples=8,model=5,opponents={opponents}/greedy"
    one = play_deals("gin", seats, deals=8, seed=2, threads=1)
    two = play_deals("gin", seats, deals=8, seed=2, threads=2)
    _same(one, two)
    kept = play_deals("gin", seats.replace("model=5", "model=-1"), deals=8, seed=2)
    assert not all(np.array_equal(getattr(one, f), getattr(kept, f)) for f in one._fields)


def test_notes_no_hand_can_play_fall_back_as_misses() -> None:
    """Notes that no hand fits (here a second turn that passed and threw again the card
    the first threw, which it cannot hold any more) make no hands: each sample is dealt
    by the rules' model and counted as a miss."""
    checked = 0
    for _, _, obs, notes in noted_positions("gin", 10):
        if notes[0] < 2 or checked >= 5:
            continue
        bad = notes.copy()
        thrown = unpack_note(int(bad[1]))[2]
        offered, _, _, *rest = unpack_note(int(bad[3]))
        bad[3] = pack_note(offered, 0, thrown, *rest)
        made, _, work = made_hands(obs, bad, 3)
        assert made == -1
        work.inference[:] = 0
        work.inference[K.INF_NOTES : K.INF_NOTES + HISTORY_WORDS] = bad
        hidden = K.hidden_cards(obs)
        engine = K.new_engine(2, 0, -1, 1)
        K.prepare_samples(obs, hidden, np.uint64(3), K.MODEL_HISTORY, work, engine)
        assert work.inference[K.INF_STATE] == K.INF_NO_FIT
        work.misses[0] = 0
        for j in range(4):
            assert K.deal_sample(obs, hidden, np.uint64(j), K.MODEL_HISTORY, work, engine) == (
                obs.stock_n
            )
        assert work.misses[0] == 4
        checked += 1
    assert checked == 5
