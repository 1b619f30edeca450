"""How every CLI error must look: one ``error:`` line on stderr, no traceback."""

from __future__ import annotations

from typing import Any


def one_line(result: Any, status: int, *expected: str) -> str:
    """``result`` (CliRunner's) ended with ``status`` and one ``error:`` line holding each
    of ``expected``; that line."""
    assert result.exit_code == status, result.output
    assert "Traceback" not in result.output
    err: str = result.stderr.strip()
    assert err.count("\n") == 0 and err.startswith("error: "), err
    for text in expected:
        assert text in err, err
    return err
