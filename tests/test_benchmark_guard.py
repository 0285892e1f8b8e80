"""benchmarks/mccfr_speed.py prints no ratio from fewer than 10 iterations a run (imports the
script's functions only; no benchmark runs)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(scope="module")
def speed():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module("mccfr_speed")
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_a_ratio_needs_ten_iterations_in_every_run_of_both_sides(speed):
    assert speed.MIN_RATIO_ITERATIONS == 10
    assert speed.too_few_iterations({"ours": [3000, 2900], "OpenSpiel": [10, 31]}) == []
    problems = speed.too_few_iterations({"ours": [3000], "OpenSpiel": [30, 4, 9]})
    assert problems == ["OpenSpiel: a run of only 4 iterations (fewer than 10)"]
    assert len(speed.too_few_iterations({"ours": [9], "OpenSpiel": [1]})) == 2
    assert speed.too_few_iterations({"ours": [], "OpenSpiel": [50]}) == ["ours: no repeat"]
    assert speed.guarded_ratio(1000.0, 8.0, []) == 125.0
    assert speed.guarded_ratio(1000.0, 0.5, problems) is None
    assert speed.ratio_cell(None) == "no ratio"


def test_an_openspiel_window_lasts_its_seconds_then_30_iterations_or_60_s(speed):
    def done(iterations, elapsed, seconds=10.0):
        return speed.window_done(iterations, elapsed, seconds, 30, 60.0)

    assert not done(100, 9.9)  # never shorter than its seconds
    assert done(30, 10.0) and not done(29, 10.0)
    assert not done(2, 59.9) and done(2, 60.0)  # at most 60 s past the 30th iteration
    assert not done(2, 70.0, seconds=90.0)  # a longer window than the cap: its own seconds
