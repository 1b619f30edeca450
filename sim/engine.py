"""Play hands with strategies: the Python API over the round engine.

>>> from sim.engine import play_deals
>>> hands = play_deals("gin", ["greedy", "simple"], deals=1000, seed=7)
>>> hands.outcome[:5]            # kernels.layout outcome codes, one per hand
>>> game_points(hands.points)    # points per hand and seat, in game points

Points and scores in these columns are integers in the engine's unit, 1/60 of a game
point (``kernels.layout.POINT_SCALE``: a pot split among up to five tied winners stays
exact); :func:`game_points` turns them into game points. The study tables
(``sim.study``) and the ``rummy`` package hold game points already.

Every hand is a pure function of (rule set, line-up, seed, deal number): the same
arguments give identical columns whatever ``threads`` is, with or without ``progress``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from kernels import layout as L
from kernels.obs import SCRATCH_HAND, SCRATCH_SIZE
from kernels.probe import PU_NEXT, PU_ROWS
from sim import rollouts
from sim.agents import seats as agent_seats
from sim.engine_build import engine_for, engine_with, played_hooks
from sim.rules import RuleSet
from sim.solver import resolve_rules, tables_for
from sim.warm import LAST, ensure, warm_entry
from strategies import (
    BUILTINS,
    HOOKS,
    Strategy,
    format_seat,
    lineup_labels,
    params_vector,
    parse_lineup,
    parse_seat,
    seat_label,
)
from strategies.agent import AGENT, AgentStrategy

__all__ = [
    "Lineup",
    "StrategyDecisionError",
    "engine_of",
    "game_points",
    "key_of",
    "lineup_of",
    "play_deals",
    "probe_deals",
    "play_games",
    "replay_game",
    "replay_hand",
]


class StrategyDecisionError(ValueError):
    """A strategy (or an agent) made a decision the rules do not allow: the run stops,
    no result; the command says so in one line."""


@dataclass(frozen=True)
class Lineup:
    """One strategy and parameter record per seat; ``written``: the text it was read
    from (None: built from records), for how its seats are shown."""

    seats: tuple[tuple[Strategy, NamedTuple], ...]
    written: str | tuple[str, ...] | None = field(default=None, compare=False)

    @property
    def names(self) -> list[str]:
        """Each seat's canonical spec (``strategies.format_seat``)."""
        return [format_seat(s, p) for s, p in self.seats]

    @property
    def labels(self) -> list[str]:
        """How each seat is shown (``strategies.seat_label``: ``chart:gin`` as written,
        never a chart's spec)."""
        if self.written is not None:
            return lineup_labels(self.written, len(self.seats))
        return [seat_label(spec) for spec in self.names]

    def arrays(
        self, ids: dict[str, int], rules: RuleSet | None = None, known: bool = True
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """Strategy ids and parameter rows, as the engine takes them; with ``rules``,
        every agent seat bound to its live agent (``sim.agents.seats``) and every
        ``mc`` seat that rolls out with strategies to its rollout line-up
        (``sim.rollouts``; ``known`` False: the other seats are stand-ins)."""
        sids = np.array([ids[s.name] for s, _ in self.seats], np.int64)
        params = np.stack([params_vector(p) for _, p in self.seats])
        if rules is not None:
            if self.agents:
                agent_seats.bind(self.seats, params, rules)
            rollouts.bind(self.seats, params, rules, known, rollout_engine)
        return sids, params

    @property
    def agents(self) -> bool:
        """Whether a seat is played by an agent (docs/AGENTS.md): one thread plays."""
        return agent_seats.seated(self.seats)


def lineup_of(
    spec: Lineup | str | Iterable[str], players: int, rules: RuleSet | None = None
) -> Lineup:
    """A line-up from ``greedy:knock_at=7/simple``, a list of specs, or a Lineup; a
    chart seated by name or file must be made for ``rules`` (when given)."""
    if isinstance(spec, Lineup):
        if len(spec.seats) != players:
            raise ValueError(
                f"line-up has {len(spec.seats)} seats but the rules have players={players}"
            )
        return spec
    specs = spec if isinstance(spec, str) else tuple(spec)
    return Lineup(tuple(parse_lineup(specs, players, rules=rules)), specs)


NUMBERS = 2**63  # deal and game numbers: 0 .. NUMBERS - 1 (the engine's int64)


def _check_numbers(what: str, first: int, count: int) -> None:
    """Deal or game numbers ``first .. first + count - 1`` must be ones the engine takes."""
    if count < 0:
        raise ValueError(f"{what}s must be >= 0, got {count}")
    if first < 0 or first + count > NUMBERS:
        got = f"{first}" if count == 1 else f"{first}..{first + count - 1}"
        raise ValueError(f"{what} numbers must lie in 0..{NUMBERS - 1}, got {got}")


def key_of(seed: int) -> np.uint64:
    """The engine's 64-bit key for a user seed (NumPy's SeedSequence, documented)."""
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}")
    return np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]


# Single deals of a line-up of these strategies only (the main job's, and most runs')
# play on an engine of just these: its cold compile is half that of the engine of every
# strategy (7 against 14 CPU seconds, the longest compile of a cold ``rummy run``). A
# hand depends only on its seats' hooks, not on what else an engine holds.
CORE = ("greedy", "simple")


def _engine(seats: Lineup, deals: bool = False) -> tuple[ModuleType, dict[str, int]]:
    """The engine of every built-in strategy and of agent seats (hooks that are pieces,
    ``mc``'s, the chart's and the agents' among them, it calls through a slot, and a
    plugin's pieces through a socket: no compile of the engine for any of them; a
    plugin of plain hooks is compiled in, ``sim.engine_build.engine_with``), or for
    ``deals`` of a ``CORE`` line-up, the engine of ``CORE``. The ids, by strategy name."""
    if deals and {s.name for s, _ in seats.seats} <= set(CORE):
        strategies = [BUILTINS[name] for name in CORE]
        return engine_for(strategies), {s.name: i for i, s in enumerate(strategies)}
    plugins = [s for s, _ in seats.seats if s.name not in BUILTINS and s.name != AGENT.name]
    return engine_with(plugins)


def engine_of(
    seats: Lineup, rules: RuleSet, known: bool = True
) -> tuple[ModuleType, npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """The engine of every registered strategy, and the line-up's strategy ids and
    parameter rows in it (bound for ``rules``; ``known``: ``Lineup.arrays``), for
    callers that play it themselves (``sim.advise`` with ``--opponents``,
    ``sim.rollouts``, ``rummy.player``)."""
    engine, ids = _engine(seats)
    sids, params = seats.arrays(ids, rules, known)
    return engine, sids, params


def rollout_engine(specs: Any, rules: RuleSet) -> tuple[ModuleType, Any, Any, Any]:
    """``sim.rollouts``' view of ``engine_of``: a rollout line-up's engine, ids, bound
    rows and seats, from its specs."""
    seats = Lineup(tuple(parse_seat(spec) for spec in specs))
    return (*engine_of(seats, rules), seats.seats)


def _ready(engine: ModuleType, seats: Lineup, entry: Any, args: tuple[Any, ...]) -> None:
    """Compile ``entry`` and the pieces it and the seated strategies' hooks may call, or
    load them, before the first call (``sim/warm.py``: in parallel when cold)."""
    hooks = [hook for s, _ in seats.seats for hook in played_hooks(s)]
    dispatch = (engine.hook_take, engine.hook_discard, engine.hook_knock)  # every strategy's
    # A plugged plugin's own pieces never run (the socket's pieces hold their code).
    unplayed = [getattr(s, h) for s, _ in seats.seats for h in HOOKS]
    skip = [*dispatch, *(h for h in unplayed if all(h is not p for p in hooks))]
    ensure(entry, args, roots=hooks, skip=skip)


def _raise_decision_error(
    error: npt.NDArray[np.int64], engine: ModuleType, lineup: Lineup, seed: int,
    params: npt.NDArray[np.float64],
) -> None:  # fmt: skip
    code, seat, number, hand_index, turn, value = (int(x) for x in error[:6])
    what = f"{engine.ERROR_NAMES[code]}: value {value}"
    where = f"seed {seed}, deal {number}, hand {hand_index}, turn {turn}"
    if isinstance(lineup.seats[seat][0], AgentStrategy):
        said = agent_seats.failure(params, seat) or what
        raise StrategyDecisionError(
            f"the agent at seat {seat} ({lineup.labels[seat]}) failed at its {said}; {where}"
        )
    raise StrategyDecisionError(f"strategy {lineup.labels[seat]!r} (seat {seat}) {what}; {where}")


PROGRESS_BLOCKS = 20  # about as many blocks, of equal size, where progress is reported
Told = Callable[[int], None]
"""``progress``: called with the deals (games) of each block as it is played, from the
thread that played it."""


def _blocks(n: int, threads: int, progress: Told | None = None) -> list[tuple[int, int]]:
    """Contiguous row ranges of equal size: a few per thread for load balance, and with
    ``progress`` about ``PROGRESS_BLOCKS`` (results do not depend on the split)."""
    n_blocks = max(1, min(n, max(4 * threads, PROGRESS_BLOCKS if progress else 0)))
    size = -(-n // n_blocks) if n else 0
    return [(b * size, min(n, (b + 1) * size)) for b in range(n_blocks) if b * size < n] or [(0, 0)]


def _map(function: Any, items: list[Any], threads: int) -> list[Any]:
    """``function`` over ``items`` on ``threads`` threads (the kernels release the GIL)."""
    if threads <= 1 or len(items) <= 1:
        return [function(item) for item in items]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(function, items))


def game_points(units: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Engine units (1/60 point: the ``points`` and ``scores`` columns of
    :func:`play_deals` and :func:`play_games`) as game points."""
    return np.asarray(units, np.float64) / L.POINT_SCALE


def _threads(threads: int | None) -> int:
    if threads is None:
        return os.cpu_count() or 1
    if threads < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")
    return threads


def _deals_setup(
    rules: str | RuleSet, lineup: Lineup | str | Iterable[str], first: int, deals: int, core: bool
) -> tuple[RuleSet, Lineup, ModuleType, npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Single deals' rules, line-up, engine (``_engine``'s), strategy ids and parameter
    rows, the deal numbers checked."""
    r = resolve_rules(rules)
    seats = lineup_of(lineup, r.players, r)
    _check_numbers("deal", first, deals)
    engine, ids = _engine(seats, deals=core)
    sids, params = seats.arrays(ids, r)
    return r, seats, engine, sids, params


def play_deals(
    rules: str | RuleSet,
    lineup: Lineup | str | Iterable[str],
    *,
    deals: int,
    seed: int,
    first: int = 0,
    threads: int | None = None,
    progress: Told | None = None,
) -> Any:
    """Play single hands ``first .. first + deals - 1`` (each dealt by the last seat).

    Returns the engine's ``HandColumns`` (numpy arrays, one row per hand; ``points``
    in 1/60 point: :func:`game_points`). ``progress`` is told the deals of each block
    as it is played (``PROGRESS_BLOCKS``).
    """
    r, seats, engine, sids, params = _deals_setup(rules, lineup, first, deals, core=True)
    n_threads = 1 if seats.agents else _threads(threads)
    cols = engine.new_columns(deals, r.players)
    compiled, tab, key = r.compile(), tables_for(r), key_of(seed)
    blocks = _blocks(deals, n_threads, progress)
    states = [engine.new_state(r.players) for _ in blocks]

    def args(b: int) -> tuple[Any, ...]:
        begin, end = blocks[b]
        scores = np.zeros(r.players, np.int64)  # no game: zero scores, one array per block
        # Hand ``first + row`` in row ``row``, dealt by the last seat, hand 0 of no game.
        return (
            compiled, tab, key, first, 0, r.players - 1, sids, params, scores, states[b], cols,
            begin, end, None, None,
        )  # fmt: skip

    _ready(engine, seats, engine.play_hands, args(0))

    def play(b: int) -> int:
        code = engine.play_hands(*args(b))
        if progress is not None:
            progress(blocks[b][1] - blocks[b][0])
        return int(code)

    codes = _map(play, list(range(len(blocks))), n_threads)
    failed = [b for b, code in enumerate(codes) if code]
    if failed:
        _raise_decision_error(states[failed[0]].error, engine, seats, seed, params)
    return cols


@warm_entry("engine: single hands")
def _warm_deals() -> None:
    """Compile (or load) the engine of every strategy, playing no hand (``rummy warm``)."""
    play_deals("gin", "random", deals=0, seed=0, threads=1)


@warm_entry("engine: single hands of greedy and simple")
def _warm_core_deals() -> None:
    """Compile (or load) the engine of ``CORE``, playing no hand (``rummy warm``)."""
    play_deals("gin", "greedy", deals=0, seed=0, threads=1)


def probe_deals(
    rules: str | RuleSet,
    lineup: Lineup | str | Iterable[str],
    probe: Any,
    *,
    deals: int,
    seed: int,
    first: int = 0,
) -> tuple[Any, npt.NDArray[np.int64]]:
    """Play single hands ``first .. first + deals - 1`` (the hands ``play_deals`` plays)
    with a probe (``kernels.probe.Probe``): one seat's decisions of one kind counted,
    forced or played both ways from the true state. Returns the hands' columns (those
    of the real play) and every row the probe wrote (its ``rows`` array is emptied as
    it fills). One thread: a study's chunks are its parallel unit.
    """
    r, seats, engine, sids, params = _deals_setup(rules, lineup, first, deals, core=True)
    cols = engine.new_columns(deals, r.players)
    state = engine.new_state(r.players)
    scores = np.zeros(r.players, np.int64)
    compiled, tab, key = r.compile(), tables_for(r), key_of(seed)
    head = (compiled, tab, key, first, 0, r.players - 1, sids, params, scores, state, cols)

    def play(begin: int) -> None:
        if engine.play_hands(*head, begin, deals, None, probe):
            _raise_decision_error(state.error, engine, seats, seed, params)

    _ready(engine, seats, engine.play_hands, (*head, 0, 0, None, probe))
    parts = []
    cursor, begin = probe.cursor, 0
    while begin < deals:
        cursor[PU_ROWS] = 0
        play(begin)
        parts.append(probe.rows[: cursor[PU_ROWS]].copy())
        begin = int(cursor[PU_NEXT])
    rows = np.concatenate(parts) if parts else probe.rows[:0].copy()
    return cols, rows


def _warm_probe(lineup: str) -> None:
    """Compile (or load) the engine of ``lineup`` with a strategy chart's probe (the
    charts' own specialization of the engine), playing no hand."""
    from kernels.layout import DECK_CAPACITY
    from kernels.probe import new_probe

    probe = new_probe(
        kind=0, focal=0, samples=1, turns=1, columns=1, took=1, key=0, players=2,
        scratch_size=SCRATCH_SIZE, deck_capacity=DECK_CAPACITY,
    )  # fmt: skip
    probe_deals("gin", lineup, probe, deals=0, seed=0)


@warm_entry("engine: strategy charts")
def _warm_chart_deals() -> None:
    _warm_probe("random")


@warm_entry("engine: strategy charts of greedy and simple")
def _warm_core_chart_deals() -> None:
    _warm_probe("greedy")


@dataclass(frozen=True)
class Replay:
    """One hand, move by move: ``events`` rows are (code, seat, card, extra).

    Seats are numbered among the players dealt in: all of them, except in a pool game
    after an elimination (``GameHand.seats`` maps them back to game seats)."""

    rules: RuleSet  # for the players dealt in
    lineup: Lineup  # the same
    seed: int
    deal: int  # the deal number, or the game number of a game's hand
    events: list[tuple[int, int, int, int]]
    record: dict[str, Any]
    final_hands: list[int]  # as shown down (the knocker's after it laid its card away)
    hand_index: int = 0  # the hand's place in its game (0: a single deal)


def _replay(
    engine: ModuleType, ids: dict[str, int], rules: RuleSet, lineup: Lineup, seed: int,
    number: int, hand_index: int, dealer: int, scores: npt.NDArray[np.int64],
    memory: npt.NDArray[np.int64] | None = None,
) -> Replay:  # fmt: skip
    """Play hand ``hand_index`` of deal or game ``number`` with the event log on.
    ``memory`` (a game's later hands): each seat's game words of its scratch before
    the hand (``kernels/obs.py``), updated in place to what they are after it."""
    cols = engine.new_columns(1, rules.players)
    state = engine.new_state(rules.players)
    if memory is not None:
        state.scratch[:, SCRATCH_HAND:] = memory
    err = _play_logged(
        engine, ids, rules, lineup, seed, number, hand_index, dealer, scores, state, cols
    )
    if err:
        _raise_decision_error(state.error, engine, lineup, seed, lineup.arrays(ids, rules)[1])
    if memory is not None:
        memory[:] = state.scratch[:, SCRATCH_HAND:]
    n = int(state.counters[L.C_EVENTS])
    record = {field: getattr(cols, field)[0].tolist() for field in cols._fields}
    record["outcome_label"] = L.OUTCOME_LABELS[record["outcome"]]
    return Replay(
        rules=rules,
        lineup=lineup,
        seed=seed,
        deal=number,
        events=[
            (int(code), int(seat), int(card), int(extra))
            for code, seat, card, extra in state.log[:n]
        ],
        record=record,
        final_hands=[int(h) for h in state.hands],
        hand_index=hand_index,
    )


def _play_logged(
    engine: ModuleType, ids: dict[str, int], rules: RuleSet, lineup: Lineup, seed: int,
    number: int, hand_index: int, dealer: int, scores: npt.NDArray[np.int64], state: Any,
    cols: Any,
) -> int:  # fmt: skip
    """Play hand ``hand_index`` of deal or game ``number`` into every row of ``cols``
    (one, or none to compile only) with the event log on."""
    sids, params = lineup.arrays(ids, rules)
    args = (
        rules.compile(), tables_for(rules), key_of(seed), number, hand_index, dealer, sids,
        params, scores, state, cols, 0, cols.number.shape[0], True, None,
    )  # fmt: skip
    _ready(engine, lineup, engine.play_hands, args)
    return int(engine.play_hands(*args))


@warm_entry("engine: replays")
def compile_replays() -> None:
    """Compile (or load) the engine with its event log, playing no hand (``rummy warm``)."""
    r = resolve_rules("gin")
    seats = lineup_of("greedy", r.players)
    engine, ids = _engine(seats)
    scores = np.zeros(r.players, np.int64)
    state, cols = engine.new_state(r.players), engine.new_columns(0, r.players)
    _play_logged(engine, ids, r, seats, 0, 0, 0, r.players - 1, scores, state, cols)


def replay_hand(
    rules: str | RuleSet, lineup: Lineup | str | Iterable[str], *, seed: int, deal: int
) -> Replay:
    """Play one single hand with the event log on (the same hand ``play_deals`` plays)."""
    r = resolve_rules(rules)
    seats = lineup_of(lineup, r.players, r)
    _check_numbers("deal", deal, 1)
    engine, ids = _engine(seats)
    no_scores = np.zeros(r.players, np.int64)
    return _replay(engine, ids, r, seats, seed, deal, 0, r.players - 1, no_scores)


@dataclass(frozen=True)
class GameHand:
    """One hand of a replayed game: the game seats dealt in (in the hand's seat order)
    and the hand's replay."""

    seats: list[int]
    replay: Replay


@dataclass(frozen=True)
class GameReplay:
    """One game, hand by hand, and its row (``record``, engine units as ``play_games``)."""

    rules: RuleSet
    lineup: Lineup
    seed: int
    game: int
    hands: list[GameHand]
    record: dict[str, Any]


def replay_game(
    rules: str | RuleSet, lineup: Lineup | str | Iterable[str], *, seed: int, game: int
) -> GameReplay:
    """Game ``game`` as ``play_games`` plays it, every hand with the event log on.

    The game is played first; then each of its hands is played again on its own from
    all it depends on (the seats dealt in, the dealer, the scores before it, the seats'
    game memory, the game and hand numbers) with the log on, and must give the game's
    row again.
    """
    r = resolve_rules(rules)
    seats = lineup_of(lineup, r.players, r)
    _check_numbers("game", game, 1)
    games, hands = play_games(r, seats, games=1, seed=seed, first=game, threads=1)
    engine, ids = _engine(seats)
    scores = np.zeros(r.players, np.int64)
    memory = np.zeros((r.players, SCRATCH_SIZE - SCRATCH_HAND), np.int64)  # by game seat
    replayed = []
    for row in range(hands.number.shape[0]):
        dealt_in = [s for s in range(r.players) if hands.deadwood[row, s] >= 0]
        k = len(dealt_in)
        hand_rules = r if k == r.players else dataclasses.replace(r, players=k)
        seat_memory = memory[dealt_in]  # a copy, updated by the hand
        replay = _replay(
            engine, ids, hand_rules, Lineup(tuple(seats.seats[s] for s in dealt_in)), seed, game,
            int(hands.hand_index[row]), dealt_in.index(int(hands.dealer[row])), scores[dealt_in],
            seat_memory,
        )  # fmt: skip
        memory[dealt_in] = seat_memory
        same = (
            replay.record["points"] == hands.points[row, dealt_in].tolist()
            and replay.record["outcome"] == int(hands.outcome[row])
            and replay.record["turns"] == int(hands.turns[row])
        )
        if not same:
            raise RuntimeError(
                f"game {game}, hand {row}: played alone, the hand differs from the game's "
                "(an engine bug: please report it)"
            )
        replayed.append(GameHand(seats=dealt_in, replay=replay))
        scores += hands.points[row]
    record = {field: getattr(games, field)[0].tolist() for field in games._fields}
    return GameReplay(rules=r, lineup=seats, seed=seed, game=game, hands=replayed, record=record)


def rules_by_seats(rules: RuleSet) -> npt.NDArray[np.int64]:
    """Rule vectors for hands of k = 0..players seats (a pool plays on with fewer seats;
    an automatic hand size follows the seat count). Rows below 2 are unused."""
    rows = np.zeros((rules.players + 1, L.N_RULE_FIELDS), np.int64)
    for k in range(2, rules.players + 1):
        rows[k] = (rules if k == rules.players else dataclasses.replace(rules, players=k)).compile()
    return rows


def play_games(
    rules: str | RuleSet,
    lineup: Lineup | str | Iterable[str],
    *,
    games: int,
    seed: int,
    first: int = 0,
    threads: int | None = None,
    progress: Told | None = None,
) -> tuple[Any, Any]:
    """Play whole games ``first .. first + games - 1`` of the rule set's ``game`` mode.

    Returns ``(game_columns, hand_columns)``: one row per game, and one row per hand
    dealt (dead hands included) in game order, per-seat values in game seats; points
    and scores in 1/60 point (:func:`game_points`). ``progress`` is told the games of
    each block as it is played (``PROGRESS_BLOCKS``).
    """
    r = resolve_rules(rules)
    seats = lineup_of(lineup, r.players, r)
    _check_numbers("game", first, games)
    n_threads = 1 if seats.agents else _threads(threads)
    engine, ids = _engine(seats)
    sids, params = seats.arrays(ids, r)
    game_cols = engine.new_game_columns(games, r.players)
    by_seats, tab, key = rules_by_seats(r), tables_for(r), key_of(seed)
    blocks = _blocks(games, n_threads, progress)
    statuses = np.zeros((len(blocks), 8), np.int64)

    def args(b: int, hands: Any) -> tuple[Any, ...]:
        begin, end = blocks[b]
        return by_seats, tab, key, first, sids, params, hands, game_cols, begin, end, statuses[b]

    _ready(engine, seats, engine.play_games, args(0, engine.new_columns(0, r.players)))

    def run(b: int) -> Any:
        begin, end = blocks[b]
        capacity = max(64, 16 * (end - begin))
        while True:  # room for the block's hands; more when a game runs long
            hands = engine.new_columns(capacity, r.players)
            statuses[b] = 0
            engine.play_games(*args(b, hands))
            if statuses[b, 0] >= 0:
                if progress is not None:
                    progress(end - begin)
                return type(hands)(*(column[: statuses[b, 0]] for column in hands))
            capacity *= 4

    parts = _map(run, list(range(len(blocks))), n_threads)
    failed = np.flatnonzero(statuses[:, 1])
    if failed.size:
        _raise_decision_error(statuses[failed[0], 2:], engine, seats, seed, params)
    hands = type(parts[0])(*(np.concatenate(columns) for columns in zip(*parts, strict=True)))
    return game_cols, hands


# After the pieces and the other entries: the games' loop calls the single hands' loop,
# which is then in the cache.
@warm_entry("engine: games", LAST)
def _warm_games() -> None:
    """Compile (or load) the engine's game loop, playing no game (``rummy warm``)."""
    play_games("gin", "greedy", games=0, seed=0, threads=1)
