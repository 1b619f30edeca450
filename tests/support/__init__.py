"""What several test modules share (one home each): paths, process helpers, twins."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The project's root folder (the one holding ``pyproject.toml``)."""
