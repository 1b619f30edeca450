"""Fixtures of the study tests: one tiny real experiment, played once for the folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sim.present.experiment import save_charts, write_experiment_report
from sim.study.execute import Executor
from sim.study.experiment import ExperimentProgress, ExperimentResult, run_experiment
from sim.study.experiment_file import experiment_from_dict
from tests.support.object_store import Store, s3_server

# --- a tiny real experiment --------------------------------------------------------------------

TINY = """
name = "tiny"
seed = 5
deals = 200
duplicate = true
seats = "greedy:knock_at={k}/simple"
[grid]
k = [3, 10]
"""


@pytest.fixture(scope="package")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> ExperimentResult:
    root = tmp_path_factory.mktemp("exp")
    exp = experiment_from_dict(__import__("tomllib").loads(TINY), source="tiny.toml")
    seen: list[ExperimentProgress] = []
    result = run_experiment(
        exp, Executor(workers=1), out=root, progress=seen.append, command="pytest"
    )
    result.__dict__["seen"] = seen  # frozen dataclass: stash the progress reports
    # drawn as ``rummy run`` does, after the API: the folder is a finished experiment's
    save_charts(result.data, result.directory / "charts")
    write_experiment_report(result.data, result.directory / "report.html")
    return result


# --- an S3 object store on loopback --------------------------------------------------------------


@pytest.fixture(scope="package")
def s3() -> Iterator[Store]:
    """moto's S3 server for the package (``tests/support/object_store.py``)."""
    with s3_server() as server:
        yield server
