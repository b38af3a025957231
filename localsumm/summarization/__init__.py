"""The summarization scorer, one module per step (see ``scorer``), its prompts, schemas and rules beside it."""

from .inputs import SourceExtractor, extract_tool_results
from .result import (
    AlignmentVerdict,
    AnalyzeStepResult,
    CoverageVerdict,
    PreprocessStepResult,
    Provenance,
    SourceWindow,
    StepStats,
    SummarizationResult,
)
from .scorer import SummarizationScorer, create_summarization_scorer
from .steplog import OnCall, StepLog

__all__ = [
    "AlignmentVerdict",
    "AnalyzeStepResult",
    "CoverageVerdict",
    "OnCall",
    "PreprocessStepResult",
    "Provenance",
    "SourceExtractor",
    "SourceWindow",
    "StepLog",
    "StepStats",
    "SummarizationResult",
    "SummarizationScorer",
    "create_summarization_scorer",
    "extract_tool_results",
]
