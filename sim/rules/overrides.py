"""Rule overrides as text (``--rule knock_limit=7``, experiment files): typed values."""

from __future__ import annotations

from sim.rules.ruleset import BOOL_FIELDS, INT_BOUNDS, PARAMETERS, RuleError, choose

__all__ = ["parse_overrides"]

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def _parse_int(item: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise RuleError(f"bad rule {item!r}: {text!r} is not a whole number") from None


def _parse_value(item: str, key: str, text: str) -> object:
    """Turn the text of one override into the type its parameter holds."""
    lowered = text.lower()
    if key in BOOL_FIELDS:
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise RuleError(f"bad rule {item!r}: {key} takes one of: {choose(_TRUE + _FALSE)}")
    if key == "knock_limit":
        if lowered in ("none", "upcard"):
            return None if lowered == "none" else "upcard"
        try:
            return int(text)
        except ValueError:
            raise RuleError(
                f"bad rule {item!r}: knock_limit takes none, upcard or a whole number"
            ) from None
    if key == "hand_size":
        return None if lowered == "auto" else _parse_int(item, text)
    if key in INT_BOUNDS or key == "jokers":
        return _parse_int(item, text)
    # Strings (name, game and the choices) are checked by RuleSet itself.
    return text


def parse_overrides(items: list[str]) -> dict[str, object]:
    """Read command-line overrides such as ``["knock_limit=7", "layoff=on"]``.

    Parameters
    ----------
    items : list of str
        ``key=value`` strings; ``-`` in a key is read as ``_``
        (``knock-limit=7``). Booleans take true/false/yes/no/on/off/1/0,
        ``knock_limit`` takes none/upcard/a number, ``hand_size`` a number or auto.

    Returns
    -------
    dict
        Typed values by parameter name, ready for :func:`get_rules`. Values are
        not range-checked here; building the rule set does that.

    Raises
    ------
    RuleError
        For an item without ``=``, an unknown parameter, a parameter given twice, or
        a value of the wrong type; the message quotes the item.
    """
    overrides: dict[str, object] = {}
    for item in items:
        key_text, sep, text = item.partition("=")
        key = key_text.strip().replace("-", "_")
        text = text.strip()
        if not sep or not key or not text:
            raise RuleError(f"bad rule {item!r}: write key=value, e.g. knock_limit=7")
        if key not in PARAMETERS:
            raise RuleError(
                f"bad rule {item!r}: unknown parameter {key!r}; choose from: {choose(PARAMETERS)}"
            )
        if key in overrides:
            raise RuleError(f"bad rule {item!r}: {key} is given more than once")
        overrides[key] = _parse_value(item, key, text)
    return overrides
