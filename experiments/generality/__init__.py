"""Generality over unprepared novelties: per case, does the novelty break the plan, where is it
detected, and does the hybrid agent recover (`nesyworld generality`)."""

from nesyworld.experiments.generality.report import generality_table
from nesyworld.experiments.generality.run import (
    GeneralityConfig,
    run_case,
    run_suite,
    tally,
)

__all__ = ["GeneralityConfig", "generality_table", "run_case", "run_suite", "tally"]
