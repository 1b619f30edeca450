"""Pieces (``kernels/link.py``): compiled on their own, called through a slot that binds
itself, the same compiled code from jitted callers and from Python."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from kernels.link import pieces
from tests.support import link_sample as S

ROOT = Path(__file__).resolve().parents[2]


def test_jitted_callers_and_python_share_the_piece() -> None:
    values = np.arange(5, dtype=np.int64)
    assert S.twice(10, values) == (10 + 10) + (1 + 10)
    assert S.weighted(np.int64(2), values) == 12
    assert S.weighted(2, values) == 12  # a Python int fits int64
    # One compile: the declared signature served the jitted caller and Python.
    assert list(S.weighted.dispatcher.overloads) == [S.weighted.signature.args]
    assert S.weighted.bound


def test_arguments_that_do_not_fit_go_to_numba() -> None:
    """A strided array is no C-contiguous borrowed view: numba compiles for it."""
    values = np.arange(10, dtype=np.int64)[::2]
    assert S.weighted(1, values) == 1 + 20


def test_python_calls_take_no_reference() -> None:
    values = np.arange(3, dtype=np.int64)
    before = sys.getrefcount(values)
    for _ in range(1000):
        S.weighted(1, values)
    assert sys.getrefcount(values) == before


def test_errors_cross_the_slot() -> None:
    values = np.zeros(2, np.int64)
    with pytest.raises(ValueError, match="x must not be -1"):
        S.twice(-1, values)
    with pytest.raises(ValueError, match="x must not be -1"):
        S.weighted(-1, values)


def test_a_misdeclared_return_type_is_refused() -> None:
    with pytest.raises(TypeError, match="not the declared int64"):
        S.misdeclared.bind()
    assert not S.misdeclared.bound


def test_a_socket_calls_the_piece_plugged_into_it() -> None:
    """A compiled caller calls whatever piece is plugged into the socket when it calls:
    plugging another changes the answer, not the caller."""
    S.number.plug(S.plus_one)
    assert S.through_number(np.int64(5)) == 106
    S.number.plug(S.doubled)
    assert S.through_number(np.int64(5)) == 110
    assert S.number.plugged is S.doubled
    with pytest.raises(TypeError, match="socket tests.support.link_sample.number takes"):
        S.number.plug(S.other_signature)
    assert S.through_number(np.int64(5)) == 110


def test_a_call_through_an_empty_socket_raises() -> None:
    with pytest.raises(RuntimeError, match="tests.support.link_sample.empty"):
        S.through_empty(np.int64(1))


def test_slot_symbols_name_the_signature() -> None:
    symbols = [p.symbol for p in pieces()]
    assert len(set(symbols)) == len(symbols)
    assert S.weighted.symbol.startswith("rummy.slot.tests.support.link_sample.weighted.")


def test_a_cached_caller_binds_its_piece_in_a_new_process(tmp_path: Path) -> None:
    """The second process loads the caller from the cache with an empty slot: the first
    call binds the piece (from the cache too); no address came from the first process."""
    script = textwrap.dedent(
        """
        import numpy as np
        from tests.support import link_sample as S
        values = np.arange(4, dtype=np.int64)
        assert not S.weighted.bound
        hits = S.twice.stats.cache_hits
        print(S.twice(5, values), S.weighted.bound, hits.get(S.twice.signatures[0], 0))
        """
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    env.pop("RUMMY_NUMBA_CACHE_BASE", None)
    command = [sys.executable, "-c", script]
    runs = [
        subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        for _ in range(2)
    ]
    assert runs[0].stdout.split() == ["18", "True", "0"]
    assert runs[1].stdout.split() == ["18", "True", "1"]  # the caller came from the cache
