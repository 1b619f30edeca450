"""A ``chart`` seat as a card a person can carry: its knock, take and discard rules in
sentences, from the chart's parameters alone (nothing is played; docs/CHARTS.md, "The
card: a chart as rules").

>>> from strategies import parse_seat
>>> from sim.present.chart_card import chart_card, card_text
>>> card = chart_card(parse_seat("chart:gin")[1], label="chart:gin")
>>> print(card_text(card))           # 80 columns; card.knock, card.take, card.discard
>>> save_card(card, "cards/gin")     # card.png, card.pdf (one page: A4, Letter), card.html

The sentences, as ``strategies/chart.py`` plays them:

* Knock: the per-turn masks ``k1`` .. ``k20`` grouped into runs of own turns with the
  same mask, each mask as deadwood ranges ("Turns 1-6: knock with 6 or less"), read
  as the strategy reads it (``strategies.chart.knock_set``: the last, 51, is "51 or
  more"); turn 20 stands for turn 20 and later.
* Take: the masks ``t1`` .. ``t20`` likewise, as what the pile card does (its draw
  class, the first that holds) and bit 7, "whenever it lowers your deadwood".
* Discard: the least deadwood, then the ``safety`` order of ranks (0: the highest
  card, greedy's); ``lookahead`` and ``gin_chance`` in a sentence each when set.
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from strategies.chart import KNOCK_COLUMNS, RANKS, TURNS, knock_set

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from sim.store import PathInput, StorePath

__all__ = [
    "ChartCard",
    "card_figure",
    "card_html",
    "card_lines",
    "card_text",
    "chart_card",
    "discard_rules",
    "knock_rules",
    "knock_words",
    "page_fits",
    "save_card",
    "take_rules",
    "take_words",
    "turn_runs",
]

RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
TAKE_LOWERS_BIT = 7  # take mask bit 7: the card lowers the least deadwood at all
CLASS_WORDS = ("completes a meld", "makes a pair", "makes a near run")  # draw classes 0-2
LOWER_CLASSES = {3: (1, 3), 4: (4, 6), 5: (7, None)}  # class -> deadwood saved, lo .. hi
NOTHING_CLASS = 6
ALL_CLASSES = (1 << 7) - 1
SECTIONS = (
    ("knock", "Knock"),
    ("take", "Draw: take the pile card?"),
    ("discard", "Discard"),
    ("left", "As players go out of a pool"),  # only a chart with a card for fewer players
)
WIDTH = 80
PAGE_IN = (8.0, 10.5)  # inches: inside A4 (8.27 x 11.69) and Letter (8.5 x 11)


@dataclass(frozen=True)
class ChartCard:
    """A chart's rules in sentences: its ``title`` (how the seat is shown), the rules
    it was made for (``made_for``, words), a ``note`` on counting turns, and the rules of
    the three sections."""

    title: str
    made_for: str
    note: str
    knock: list[str] = field(default_factory=list)
    take: list[str] = field(default_factory=list)
    discard: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)  # the card played with fewer players

    def record(self) -> dict[str, Any]:
        """The card as JSON-ready data."""
        return {
            "chart": self.title,
            "made_for": self.made_for,
            "note": self.note,
            "knock": self.knock,
            "take": self.take,
            "discard": self.discard,
            "left": self.left,
        }

    def sections(self) -> list[tuple[str, list[str]]]:
        """``(heading, rules)`` of each section the card has."""
        return [(heading, getattr(self, key)) for key, heading in SECTIONS if getattr(self, key)]


# --- turns --------------------------------------------------------------------------------


def turn_runs(masks: Sequence[int]) -> list[tuple[int, int, int]]:
    """``(first turn, last turn, mask)`` of each run of own turns (from 1) with one mask."""
    runs: list[tuple[int, int, int]] = []
    for turn, mask in enumerate(masks, start=1):
        if runs and runs[-1][2] == mask:
            runs[-1] = (runs[-1][0], turn, mask)
        else:
            runs.append((turn, turn, mask))
    return runs


def _turns(first: int, last: int, turns: int = TURNS) -> str:
    """``Turns 1-6``, ``Turn 7``, ``Turns 8 and later`` (the last row stands for later
    turns too), ``Every turn``."""
    if first == 1 and last == turns:
        return "Every turn"
    if last == turns:
        return f"Turn {first} and later" if first == last else f"Turns {first} and later"
    return f"Turn {first}" if first == last else f"Turns {first}-{last}"


def _bit_ranges(mask: int, top: int) -> list[tuple[int, int]]:
    """The runs of set bits 0 .. ``top`` of ``mask``, as ``(lowest, highest)``."""
    return _true_ranges([bool((mask >> bit) & 1) for bit in range(top + 1)])


def _true_ranges(flags: Sequence[bool]) -> list[tuple[int, int]]:
    """The runs of true items of ``flags``, as ``(lowest, highest)`` index."""
    ranges: list[tuple[int, int]] = []
    for bit, flag in enumerate(flags):
        if flag:
            if ranges and ranges[-1][1] == bit - 1:
                ranges[-1] = (ranges[-1][0], bit)
            else:
                ranges.append((bit, bit))
    return ranges


def _either(items: Sequence[str], comma: bool = True) -> str:
    """``a``; ``a, or b`` (``a or b`` without ``comma``); ``a, b, or c``."""
    if len(items) <= 1:
        return "".join(items)
    if len(items) == 2 and not comma:
        return f"{items[0]} or {items[1]}"
    return ", ".join(items[:-1]) + ", or " + items[-1]


# --- knock --------------------------------------------------------------------------------


def knock_words(mask: int, gin: bool = True) -> str:
    """A knock mask in words: ``knock with 6 or less``, ``knock with 0, or 3 to 10``,
    ``knock only with gin`` (``gin`` False: ``with no deadwood``), ``never knock``."""
    top = KNOCK_COLUMNS - 1  # deadwood that or more
    ranges = _true_ranges(knock_set(mask))
    if not ranges:
        return "never knock"
    if ranges == [(0, top)]:
        return "knock with any deadwood"
    if ranges == [(0, 0)]:
        return "knock only with gin" if gin else "knock only with no deadwood"
    items = []
    for low, high in ranges:
        if high == top:
            items.append(f"{low} or more")
        elif low == high or (low > 0 and high == low + 1):  # 3, 4 reads better than 3 to 4
            items += [str(d) for d in range(low, high + 1)]
        elif low == 0:
            items.append(f"{high} or less")
        else:
            items.append(f"{low} to {high}")
    return "knock with " + _either(items)


def knock_rules(masks: Sequence[int], gin: bool = True) -> list[str]:
    """One sentence per run of own turns with the same knock mask."""
    return [f"{_turns(a, b, len(masks))}: {knock_words(m, gin)}." for a, b, m in turn_runs(masks)]


# --- take ---------------------------------------------------------------------------------


def _class_words(mask: int) -> list[str]:
    """What a pile card must do to be taken, by the draw classes (bits 0-6) of ``mask``."""
    words = [CLASS_WORDS[c] for c in range(len(CLASS_WORDS)) if (mask >> c) & 1]
    for low, high in _bit_ranges(mask >> 3, 2):  # classes 3-5: lowers by 1-3, 4-6, 7+
        lo, hi = LOWER_CLASSES[low + 3][0], LOWER_CLASSES[high + 3][1]
        words.append(
            f"lowers your deadwood by {lo} or more"
            if hi is None
            else f"lowers your deadwood by {lo} to {hi}"
        )
    if (mask >> NOTHING_CLASS) & 1:
        words.append("does nothing for your hand")
    return words


def take_words(mask: int) -> str:
    """A take mask in words: ``take the pile card when it completes a meld or lowers
    your deadwood by 7 or more; else draw from the stock``; bit 7 ``whenever it lowers
    your deadwood``."""
    if mask & ALL_CLASSES == ALL_CLASSES:
        return "always take the pile card"
    words = _class_words(mask)
    lowers = (mask >> TAKE_LOWERS_BIT) & 1
    if not words and not lowers:
        return "always draw from the stock"
    if not words:
        take = "take the pile card whenever it lowers your deadwood"
    else:
        take = f"take the pile card when it {_either(words, comma=False)}"
        take += ", or whenever it lowers your deadwood" if lowers else ""
    return take + "; else draw from the stock"


def take_rules(masks: Sequence[int]) -> list[str]:
    """One sentence per run of own turns with the same take mask, then (when a mask reads
    more than melds) how a pile card is classed."""
    rules = [f"{_turns(a, b, len(masks))}: {take_words(m)}." for a, b, m in turn_runs(masks)]
    if any(m & ALL_CLASSES & ~1 for m in masks):
        rules.append(
            "A pile card counts as the first of these that holds: it completes a meld; "
            "makes a pair; makes a near run (a card of its suit 1 or 2 ranks away); "
            "lowers your deadwood (after your best discard) by 1 to 3, 4 to 6, or 7 or "
            "more; nothing."
        )
    return rules


# --- discard ------------------------------------------------------------------------------


def _safety_order(safety: int) -> list[int]:
    """The ranks (0 = ace .. 12 = king) ``safety`` lists, safest first, each once."""
    order: list[int] = []
    for i in range(RANKS):
        rank = (safety >> (4 * i)) & 15
        if rank < RANKS and rank not in order:
            order.append(rank)
    return order


def _points(value: float) -> str:
    return f"{value:g} point" + ("" if value == 1 else "s")


def discard_rules(safety: int, lookahead: int = 0, gin_chance: int = 0) -> list[str]:
    """The discard in sentences: least deadwood, then the safety order (0: the highest
    card); the lookahead and the gin chance in a sentence each when set."""
    if safety == 0:
        first = "Throw the card that leaves the least deadwood; among equals, the highest card."
    else:
        order = _safety_order(safety)
        ranks = " ".join(RANK_NAMES[r] for r in order)
        rest = ", then any other rank" if len(order) < RANKS else ""
        first = (
            "Throw the card that leaves the least deadwood; among equals, the safest rank "
            f"first: {ranks}{rest}."
        )
    rules = [first]
    if lookahead > 0:
        rules.append(
            f"Look ahead (lookahead {lookahead}): keep the combinations with the most live "
            "cards; each point of deadwood your next draw saves on average is worth "
            f"{_points(lookahead / 10)} of deadwood now."
        )
    if gin_chance > 0:
        rules.append(
            f"Gin chance (gin_chance {gin_chance}): prefer the discard that leaves the most "
            "cards that would give you gin; each 1% chance of gin on the next draw is "
            f"worth {_points(gin_chance / 100)} of deadwood."
        )
    if lookahead > 0 or gin_chance > 0:
        rules.append(
            "When the least deadwood knocks this turn, or big gin is ready, throw the "
            "plain least-deadwood card instead."
        )
    return rules


# --- the card -----------------------------------------------------------------------------


def _made_for(header: Mapping[str, str]) -> str:
    from strategies.chart_files import describe_rules  # as "chart:gin was made for ..." says

    return "made for " + (describe_rules(header) if header else "rules unknown (no header)")


def chart_card(
    params: Any, label: str = "chart", header: Mapping[str, str] | None = None
) -> ChartCard:
    """The card of a chart's parameters (``strategies.chart.Params``, e.g. the second item
    of ``strategies.parse_seat("chart:gin")``), shown as ``label``, made for the rules of
    ``header`` (a chart file's, ``strategies.chart_files``; None: unknown)."""
    header = dict(header or {})
    gin = header.get("scoring") != "knock"
    knock = [int(getattr(params, f"k{t}")) for t in range(1, TURNS + 1)]
    take = [int(getattr(params, f"t{t}")) for t in range(1, TURNS + 1)]
    note = (
        "Turn n is your n-th draw of the hand"
        + (" (the first upcard offer counts as turn 1)" if gin else "")
        + "; a knock reads the deadwood your discard leaves."
    )
    if "reached" in header:  # the solve's final play ends every hand by then
        after = int(header["reached"]) + 1
        note += (
            f" When every seat plays this card, the solve's hands all ended before your "
            f"turn {after}; the rules from turn {after} on were set in its earlier rounds, "
            "against other play."
        )
    return ChartCard(
        title=label,
        made_for=_made_for(header),
        note=note,
        knock=knock_rules(knock, gin),
        take=take_rules(take),
        discard=discard_rules(int(params.safety), int(params.lookahead), int(params.gin_chance)),
        left=pool_rules(params, header),
    )


def pool_rules(params: Any, header: Mapping[str, str]) -> list[str]:
    """What the chart plays as a pool's players go out, most players first: the shipped
    chart whose card it is for that many players, by name, else that card's rules."""
    from strategies.chart import LAYER_PLAYERS, layer_card

    rules = []
    for n in reversed(LAYER_PLAYERS):
        card = layer_card(params, n)
        if card is None:
            continue
        name = _shipped_card(card, header, n)
        if name is not None:
            rules.append(f"With {n} players left: play the card {name}.")
            continue
        sub = chart_card(card, header={**header, "players": str(n)})
        said = " ".join(  # "Knock: Turn 1: ... . Draw: ... . Discard: ..."
            f"{heading.split(':')[0]}: " + " ".join(rule.rstrip(".") + "." for rule in said)
            for heading, said in sub.sections()
        )
        rules.append(f"With {n} players left: {said}")
    return rules


def _shipped_card(card: Any, header: Mapping[str, str], players: int) -> str | None:
    """``chart:NAME`` of the shipped chart made for ``header``'s rules with ``players``
    whose own card is ``card``, or None."""
    from strategies import parse_seat
    from strategies.chart import CARD_FIELDS
    from strategies.chart_files import layer_header, shipped_chart, shipped_names

    want = layer_header(header, players)
    for name in shipped_names():
        shipped = shipped_chart(name)
        if any(shipped.header.get(k) != v for k, v in want.items()):
            continue
        own = parse_seat(f"chart:{name}")[1]
        if all(getattr(own, f) == getattr(card, f) for f, _ in CARD_FIELDS):
            return f"chart:{name}"
    return None


def _wrap(text: str, width: int, indent: str = "", bullet: str = "") -> list[str]:
    """``text`` wrapped at spaces only (a number or a range such as 1-6 is never cut)."""
    return textwrap.wrap(
        text,
        width=width,
        initial_indent=indent + bullet,
        subsequent_indent=indent + " " * len(bullet),
        break_long_words=False,
        break_on_hyphens=False,
    )


def card_lines(card: ChartCard, width: int = WIDTH) -> list[tuple[str, str]]:
    """``(kind, line)`` of the card wrapped at ``width``: kind ``title``, ``sub``,
    ``head``, ``rule`` (a rule's first line) or ``more`` (the lines after), or ``gap``."""
    lines: list[tuple[str, str]] = [("title", line) for line in _wrap(card.title, width)]
    lines += [("sub", line) for line in _wrap(card.made_for + ".", width)]
    lines += [("sub", line) for line in _wrap(card.note, width)]
    for heading, rules in card.sections():
        lines.append(("gap", ""))
        lines.append(("head", heading))
        for rule in rules:
            wrapped = _wrap(rule, width, "  ", "- ")
            lines += [("rule" if i == 0 else "more", line) for i, line in enumerate(wrapped)]
    return lines


def card_text(card: ChartCard, width: int = WIDTH) -> str:
    """The card as terminal text, no line longer than ``width``."""
    return "\n".join(line for _, line in card_lines(card, width))


# --- the page -----------------------------------------------------------------------------

FONT_PT = {"title": 15.0, "sub": 10.0, "head": 12.0, "rule": 10.0, "more": 10.0, "gap": 10.0}
MIN_PT = 9.0
MARGIN_IN = 0.55
WRAP_AT_10PT = 92  # characters of DejaVu Sans at 10 pt across the page's text width


Placed = list[tuple[int, float, float, str, str]]  # column, baseline (pt), size, kind, line
LAYOUTS = ((1, 1.0, 1.45), (1, 0.95, 1.3), (1, 0.9, 1.2), (2, 0.9, 1.3), (2, 0.9, 1.15))
GUTTER_IN = 0.3


def _layout(card: ChartCard, columns: int, scale: float, spacing: float) -> tuple[Placed, bool]:
    """The card's lines flowed down ``columns`` columns of the page; whether they fit."""
    width_in, height_in = PAGE_IN
    column_in = (width_in - 2 * MARGIN_IN - (columns - 1) * GUTTER_IN) / columns
    wrap = int(WRAP_AT_10PT / scale * column_in / (8.0 - 2 * MARGIN_IN)) - 4
    top, bottom = (height_in - MARGIN_IN) * 72, MARGIN_IN * 72
    placed: Placed = []
    column, y = 0, top
    for kind, line in card_lines(card, wrap):
        size = max(MIN_PT, FONT_PT[kind] * scale)
        if y - size * spacing < bottom and column + 1 < columns:
            column, y = column + 1, top
            if kind == "gap":
                continue
        y -= size * spacing
        if kind != "gap":
            placed.append((column, y, size, kind, line))
    return placed, y >= bottom


def page_fits(card: ChartCard) -> bool:
    """Whether the card fits its one page (:func:`card_figure` cuts it at the foot when
    not: a chart of some 60 runs of turns)."""
    return any(_layout(card, *layout)[1] for layout in LAYOUTS)


def card_figure(card: ChartCard) -> Figure:
    """The card as one page (``PAGE_IN``, inside A4 and Letter): title, the rules it was
    made for, then the three sections as headed lists; text of 9 pt or more (in two
    columns when one is too long)."""
    from matplotlib.figure import Figure

    width_in, height_in = PAGE_IN
    for columns, scale, spacing in LAYOUTS:  # the first that fits; else the last
        placed, fits = _layout(card, columns, scale, spacing)
        if fits:
            break
    column_in = (width_in - 2 * MARGIN_IN - (columns - 1) * GUTTER_IN) / columns
    fig = Figure(figsize=PAGE_IN)
    fig.patch.set_facecolor("white")
    for column, y, size, kind, line in placed:
        fig.text(
            (MARGIN_IN + column * (column_in + GUTTER_IN)) / width_in,
            y / (height_in * 72),
            line,
            fontsize=size,
            fontweight="bold" if kind in ("title", "head") else "normal",
            color="0.3" if kind == "sub" else "black",
            family="DejaVu Sans",
            va="baseline",
            ha="left",
        )
    return fig


# A phone's screen (390 px) and a desktop's alike: the text reflows, 18 px type, lines
# of at most 40 em.
CARD_CSS = """
body { font: 18px/1.45 system-ui, sans-serif; margin: 0 auto; padding: 1em;
       max-width: 40em; color: #111; overflow-wrap: break-word; }
h1 { font-size: 1.4em; margin: 0 0 .3em; }
h2 { font-size: 1.15em; margin: 1.2em 0 .3em; }
p { margin: .2em 0; color: #444; }
ul { margin: 0; padding-left: 1.2em; }
li { margin: .25em 0; }
"""


def card_html(card: ChartCard) -> str:
    """The card as one self-contained HTML page that reads on a 390 px phone and on a
    desktop: the same sentences as the text and the page."""
    parts = [
        f"<h1>{html.escape(card.title)}</h1>",
        f"<p>{html.escape(card.made_for)}.</p>",
        f"<p>{html.escape(card.note)}</p>",
    ]
    for heading, rules in card.sections():
        items = "".join(f"<li>{html.escape(rule)}</li>" for rule in rules)
        parts.append(f"<h2>{html.escape(heading)}</h2><ul>{items}</ul>")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(card.title)}</title><style>{CARD_CSS}</style></head>"
        f"<body>{''.join(parts)}</body></html>\n"
    )


def save_card(card: ChartCard, folder: PathInput) -> list[StorePath]:
    """Write ``card.png``, ``card.pdf`` and ``card.html`` in ``folder`` (each
    atomically); the paths."""
    from sim import store
    from sim.present.charts import save

    target = store.location(folder)
    written = save(card_figure(card), target / "card", formats=("png", "pdf"))
    page = target / "card.html"
    store.write_text_atomic(page, card_html(card))
    return [*written, page]
