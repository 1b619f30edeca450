"""``sim.study.settings``: grid expansion into runs, seatings, one seed per block,
and where the focal seat sits in each seating."""

from __future__ import annotations

from pathlib import Path

from sim.rules import get_rules
from sim.study.settings import Setting, block_seed, expand
from tests.support.experiments import GIN_SWEEP, load

# --- expansion -------------------------------------------------------------------------------


def test_expand_grid_rules_rotations_and_one_seed(tmp_path: Path) -> None:
    exp = load(tmp_path, GIN_SWEEP)
    settings = expand(exp, out=tmp_path)
    assert len(settings) == 12
    first = settings[0]
    assert first.label == "gin, knock_at=0, undercut_bonus=10"
    assert first.variant == "gin" and dict(first.params) == {
        "knock_at": 0,
        "rule.undercut_bonus": 10,
    }
    assert first.rules.undercut_bonus == 10 and first.rules.knock_limit == 10
    assert first.lineup == ("greedy:knock_at=0", "simple")
    classic = [s for s in settings if s.variant == "classic"][0]
    assert classic.rules.name == "gin-classic" and classic.rules.big_gin_bonus == 0
    # duplicate: both seatings, template seat 0 at position 0 then 1
    assert [c.lineup for c in first.configs] == [
        ("greedy:knock_at=0", "simple"),
        ("simple", "greedy:knock_at=0"),
    ]
    assert [first.position(0, r) for r in first.rotations] == [0, 1]
    # common random numbers: every run of every setting has the experiment's seed
    assert {c.seed for s in settings for c in s.configs} == {11}
    assert {c.experiment for s in settings for c in s.configs} == {"t"}
    assert len({c.run_id for s in settings for c in s.configs}) == 24
    assert first.configs[0].run_dir == tmp_path / "t" / first.configs[0].run_id
    # a block added by `precision`: another seed, the same for every setting
    more = expand(exp, out=tmp_path, block=1, count=50)
    seeds = {c.seed for s in more for c in s.configs}
    assert seeds == {block_seed(11, 1)} and block_seed(11, 1) != 11
    assert {c.count for s in more for c in s.configs} == {50}


def test_symmetric_lineup_is_not_rotated(tmp_path: Path) -> None:
    exp = load(
        tmp_path,
        'name = "a"\ndeals = 10\nseats = "greedy"\nduplicate = true\nrules = "knock-rummy"\n',
    )
    (setting,) = expand(exp)
    assert len(setting.configs) == 1 and setting.label == "knock-rummy"


def test_setting_position_math() -> None:
    s = Setting("x", "v", (), get_rules("knock-rummy"), ("a",) * 4, (), (0, 1, 2, 3))
    assert [s.position(0, r) for r in range(4)] == [0, 3, 2, 1]
    assert [s.position(2, r) for r in range(4)] == [2, 1, 0, 3]
