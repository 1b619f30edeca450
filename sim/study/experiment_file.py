"""Experiment files (TOML): read, check and turn into an :class:`Experiment`.

Every key is checked as it is read, and every mistake is one line that names the file,
the key and what is allowed (``ExperimentError``). Grid values follow the grammar of
``sim/study/grid.py`` (the same as ``rummy sweep --grid`` and ``rummy tune --param``).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sim import store
from sim.limits import MAX_COUNT, MAX_SEED, chunk_size_problem
from sim.rules import DEFAULT_PRESET, PARAMETERS, PRESETS
from sim.sizes import DEFAULT_DEALS
from sim.study.claims import check_claims, read_claims
from sim.study.design import (
    CHART_KINDS,
    IDENT,
    KEYS,
    MAX_SETTINGS,
    PLACEHOLDER,
    Experiment,
    ExperimentError,
    Variant,
    fail,
    rule_value,
)
from sim.study.grid import parse_values
from sim.study.kinds import SWEEP
from sim.study.runs import RunError, check_name
from sim.study.settings import expand

__all__ = [
    "experiment_from_dict",
    "experiment_identity",
    "load_experiment",
    "named_by_identity",
    "parse_grid_values",
    "replace_checked",
    "sweep_experiment",
]

# Keys of an experiment that change neither its runs nor its analysis.
_NOT_IDENTITY = ("description", "chunk_size", "charts")


def experiment_from_dict(
    data: Mapping[str, Any], *, source: str = "experiment", name: str | None = None
) -> Experiment:
    """Read and check an experiment from the keys of its file (see ``design``).

    Every setting is expanded once (rules and line-ups parsed), so a bad preset,
    parameter, strategy or value fails here with a one-line :class:`ExperimentError`.
    """
    experiment = _from_dict(data, source, name)
    expand(experiment, seed=0)
    return experiment


def replace_checked(experiment: Experiment, **changes: Any) -> Experiment:
    """A copy of ``experiment`` with some fields changed, checked again."""
    new = dataclasses.replace(experiment, **changes)
    expand(new, seed=0)
    return new


def experiment_identity(experiment: Mapping[str, Any]) -> dict[str, Any]:
    """What makes an experiment (its file's keys) the study it is: two that differ
    here are different studies (``run_experiment`` refuses to put one in the other's
    folder)."""
    return {k: v for k, v in experiment.items() if k not in _NOT_IDENTITY}


def named_by_identity(experiment: Experiment, prefix: str) -> Experiment:
    """``experiment`` named ``PREFIX-ID``, ID a digest of its settings and seed: a study
    made from flags or arguments gets a folder of its own (``rummy sweep`` without
    ``--name``: ``results/sweep-3f9c2a1b4d5e/``)."""
    from sim.study.records import study_id

    settings = experiment_identity(experiment.to_dict())
    settings.pop("name")
    return dataclasses.replace(experiment, name=f"{prefix}-{study_id(settings)}")


def sweep_experiment(
    seats: str | list[str],
    grid: Mapping[str, Any],
    *,
    presets: list[str],
    seed: int,
    mode: str = "deals",
    count: int = DEFAULT_DEALS["sweep"],
    rule: Mapping[str, Any] | None = None,
    duplicate: bool = False,
    rows: str = "hands",
    name: str | None = None,
    source: str = "rummy sweep",
    **optional: Any,
) -> Experiment:
    """The experiment a sweep plays (``rummy sweep``, ``rummy.sweep``): the line-up
    template ``seats`` over ``grid`` (already parsed values), one variant per preset when
    there are several, ``optional`` keys (``headline``, ``precision``, ``max_count``,
    ``chunk_size``) where not None. Without a ``name`` it is named by its identity
    (:func:`named_by_identity`), so that another sweep never lands in its folder."""
    data: dict[str, Any] = {
        "name": name or SWEEP.folder,
        "seed": seed,
        mode: count,
        "rules": {"preset": presets[0], **dict(rule or {})},
        "seats": [seats] if isinstance(seats, str) else list(seats),
        "grid": dict(grid),
        "duplicate": bool(duplicate),
        "rows": rows,
    }
    if len(presets) > 1:
        data["variants"] = {p: {"preset": p} for p in presets}
    data.update({key: value for key, value in optional.items() if value is not None})
    experiment = experiment_from_dict(data, source=source)
    return experiment if name else named_by_identity(experiment, "sweep")


# --- reading the file ----------------------------------------------------------------


def load_experiment(path: str | os.PathLike[str]) -> Experiment:
    """Read an experiment TOML file (one-line :class:`ExperimentError` on any problem)."""
    try:
        data = store.read_toml(path, "experiment file")
    except store.StorageError as error:
        raise ExperimentError(str(error)) from None
    return experiment_from_dict(data, source=str(path), name=Path(path).stem)


def _want_int(where: str, key: str, value: Any, low: int, high: int = MAX_COUNT) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise fail(where, f"{key} = {value!r} is not allowed; give a whole number {low}..{high}")
    return value


def _want_str(where: str, key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise fail(where, f"{key} = {value!r} is not allowed; give a text in quotes")
    return value


def _check_label(where: str, key: str, value: str) -> str:
    try:
        return check_name(value, key)
    except RunError as error:
        raise fail(where, str(error)) from None


def read_rules(where: str, value: Any) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """A file's ``rules``: a preset name, or a table of a preset and rule parameters
    (experiment and tune files alike). Returns the preset and the overrides."""
    preset, overrides = _rules_table(where, "rules", value)
    if preset is None:
        raise fail(where, "rules.preset is missing; give a preset name (see `rummy rules list`)")
    if preset not in PRESETS:
        raise fail(where, f"rules: unknown preset {preset!r}; choose one of: {', '.join(PRESETS)}")
    return preset, overrides


def _rules_table(
    where: str, key: str, value: Any
) -> tuple[str | None, tuple[tuple[str, Any], ...]]:
    if isinstance(value, str):
        return value, ()
    if not isinstance(value, Mapping):
        raise fail(where, f"{key} must be a preset name or a table of rule parameters")
    preset = value.get("preset")
    if preset is not None and not isinstance(preset, str):
        raise fail(where, f"{key}.preset = {preset!r} is not allowed; give a preset name")
    if preset is not None and preset not in PRESETS:
        raise fail(
            where, f"{key}.preset: unknown preset {preset!r}; choose one of: {', '.join(PRESETS)}"
        )
    overrides = tuple(
        (param, rule_value(where, param, v)) for param, v in value.items() if param != "preset"
    )
    return preset, overrides


def parse_grid_values(text: str) -> list[Any]:
    """Grid values from text (``sim/study/grid.py``): at most ``MAX_SETTINGS`` of them."""
    return parse_values(text, limit=MAX_SETTINGS)


def _grid(where: str, value: Any) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    if not isinstance(value, Mapping):
        raise fail(where, "grid must be a table: key = [values]")
    flat: dict[str, Any] = {}
    for key, values in value.items():
        if key == "rule" and isinstance(values, Mapping):  # rule.x = [...] unquoted in TOML
            for param, v in values.items():
                flat[f"rule.{param}"] = v
        else:
            flat[key] = values
    if not flat:
        raise fail(where, "grid is empty; give at least one key = [values], or leave it out")
    out = []
    for key, values in flat.items():
        if isinstance(values, str):
            try:
                values = parse_grid_values(values)
            except ValueError as error:
                raise fail(where, f"grid.{key}: {error}") from None
        if not isinstance(values, list):
            raise fail(where, f"grid.{key} must be a list of values or a range 'low..high'")
        if not values:
            raise fail(where, f"grid.{key} is empty; give at least one value")
        if len(values) > MAX_SETTINGS:
            raise fail(
                where,
                f"grid.{key} has {len(values):,} values; a grid may hold at most "
                f"{MAX_SETTINGS:,} settings",
            )
        seen: set[tuple[type, Any]] = set()
        for v in values:
            if isinstance(v, (dict, list)):
                raise fail(where, f"grid.{key}: {v!r} is not a value; give numbers or text")
            if (type(v), v) in seen:
                raise fail(where, f"grid.{key} lists {v!r} twice")
            seen.add((type(v), v))
        out.append((key, tuple(values)))
    return tuple(out)


def _from_dict(data: Mapping[str, Any], where: str, default_name: str | None) -> Experiment:
    if not isinstance(data, Mapping):
        raise fail(where, "an experiment is a table of keys")
    for key in data:
        if key not in KEYS:
            raise fail(where, f"unknown key {key!r}; allowed: {', '.join(KEYS)}")
    values: dict[str, Any] = {"source": where}
    name = data.get("name", default_name)
    if name is None:
        raise fail(where, 'name is missing; give name = "..."')
    values["name"] = _check_label(where, "name", _want_str(where, "name", name))
    if "description" in data:
        values["description"] = _want_str(where, "description", data["description"])
    if "seed" in data:
        values["seed"] = _want_int(where, "seed", data["seed"], 0, MAX_SEED)
    sizes = [k for k in ("deals", "games") if k in data]
    if len(sizes) != 1:
        raise fail(
            where,
            "give exactly one size: deals = N (single hands) or games = N (whole games)",
        )
    values["mode"] = sizes[0]
    values["count"] = _want_int(where, sizes[0], data[sizes[0]], 1)
    values["rules"], values["rule"] = read_rules(where, data.get("rules", DEFAULT_PRESET))
    if "variants" in data:
        table = data["variants"]
        if not isinstance(table, Mapping) or not table:
            raise fail(where, "variants must be a table of named rule sets: [variants.NAME]")
        variants = []
        for vname, spec in table.items():
            _check_label(where, "variant name", vname)
            if not isinstance(spec, Mapping):
                raise fail(where, f"variants.{vname} must be a table (preset and/or parameters)")
            vpreset, voverrides = _rules_table(where, f"variants.{vname}", spec)
            variants.append(Variant(vname, vpreset, voverrides))
        values["variants"] = tuple(variants)
    if "seats" not in data:
        raise fail(where, 'seats is missing; give a line-up such as "greedy:knock_at={k}/simple"')
    seats = data["seats"]
    if isinstance(seats, str):
        seats = [seats]
    if not isinstance(seats, list) or not seats or not all(isinstance(s, str) for s in seats):
        raise fail(where, "seats must be a line-up text or a list of seat specs")
    values["seats"] = tuple(seats)
    if "grid" in data:
        values["grid"] = _grid(where, data["grid"])
    if "duplicate" in data:
        if not isinstance(data["duplicate"], bool):
            raise fail(
                where, f"duplicate = {data['duplicate']!r} is not allowed; give true or false"
            )
        values["duplicate"] = data["duplicate"]
    if "headline" in data:
        values["headline"] = _want_str(where, "headline", data["headline"])
    if "charts" in data:
        charts = data["charts"]
        if isinstance(charts, str):
            charts = [charts]
        if not isinstance(charts, list) or not all(isinstance(c, str) for c in charts):
            raise fail(where, f"charts must be a list of: {', '.join(CHART_KINDS)}")
        values["charts"] = tuple(c.replace("-", "_") for c in charts)
    if "threshold" in data:
        values["threshold"] = _want_str(where, "threshold", data["threshold"])
    if "rows" in data:
        if data["rows"] not in ("hands", "none"):
            raise fail(where, f"rows = {data['rows']!r} is not allowed; choose 'hands' or 'none'")
        values["rows"] = data["rows"]
    if "chunk_size" in data:
        values["chunk_size"] = _want_int(where, "chunk_size", data["chunk_size"], 1)
        if problem := chunk_size_problem(values["chunk_size"]):
            raise fail(where, f"chunk_size = {problem}")
    if "precision" in data:
        p = data["precision"]
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 < p < math.inf:
            raise fail(where, f"precision = {p!r} is not allowed; give a finite number > 0")
        values["precision"] = float(p)
    if "max_count" in data:
        values["max_count"] = _want_int(where, "max_count", data["max_count"], 1)
    _check_grid_use(where, values)
    if "claims" in data:
        values["claims"] = read_claims(where, data["claims"], values["mode"])
        check_claims(
            where,
            values["claims"],
            dict(values.get("grid", ())),
            [v.name for v in values.get("variants", ())],
        )
    return Experiment(**values)


def _check_grid_use(where: str, values: dict[str, Any]) -> None:
    grid = dict(values.get("grid", ()))
    template = "/".join(values["seats"])
    used = PLACEHOLDER.findall(template)
    for name in used:
        if not IDENT.match(name):
            raise fail(
                where, f"seats: {{{name}}} is not a placeholder; write {{name}} with a grid key"
            )
        if name not in grid:
            raise fail(
                where,
                f"seats uses {{{name}}} but the grid has no key {name!r}; "
                f"grid keys: {', '.join(grid) or '(none)'}",
            )
    for key in grid:
        if key.startswith("rule."):
            if key[5:] not in PARAMETERS:
                raise fail(
                    where,
                    f"grid key {key!r}: unknown rule parameter {key[5:]!r}; choose from: "
                    f"{', '.join(PARAMETERS)}",
                )
            continue
        if not IDENT.match(key):
            raise fail(where, f"grid key {key!r} is not allowed; use a name, or rule.<parameter>")
        if key not in used:
            raise fail(
                where,
                f"grid key {key!r} is not used: put {{{key}}} in seats, or name a rule "
                f"parameter as rule.{key}",
            )
    n = max(1, len(values.get("variants", ()))) * math.prod(len(v) for v in grid.values())
    if n > MAX_SETTINGS:
        raise fail(where, f"the grid makes {n} settings; at most {MAX_SETTINGS} are allowed")
