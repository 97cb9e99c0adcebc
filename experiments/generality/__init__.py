"""Generality over unprepared novelties: per case, does the novelty break the plan, where is it
detected, and does the hybrid agent recover (`nesyworld generality`)."""

from nesyworld.experiments.generality.report import generality_table
from nesyworld.experiments.generality.run import (
    GeneralityConfig,
    run_case,
    run_suite,
    tally,
)
from nesyworld.experiments.generality.suites import SUITES, Suite, domain_novelties, get_suite

__all__ = ["SUITES", "GeneralityConfig", "Suite", "domain_novelties", "generality_table",
           "get_suite", "run_case", "run_suite", "tally"]
