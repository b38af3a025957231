"""Runs: many items through a scorer (``run_evals``), data files in, the results file out."""

from .batch import EvalRun, ItemResult, Scorer, run_evals
from .records import Record, read_records
from .results import ResultLine, read_results

__all__ = ["EvalRun", "ItemResult", "Record", "ResultLine", "Scorer", "read_records", "read_results", "run_evals"]
