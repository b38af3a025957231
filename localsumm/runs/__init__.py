"""Runs: many items through a scorer (``run_evals``), data files in, the results file out."""

from .batch import EvalRun, run_evals
from .records import Item, read_records
from .results import ResultLine, read_results
from .scoring import ItemResult, Scorer

__all__ = ["EvalRun", "Item", "ItemResult", "ResultLine", "Scorer", "read_records", "read_results", "run_evals"]
