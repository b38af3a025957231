"""The package version: below everything, so any layer can record it without importing the facade.

Every result records it (``provenance.localsumm_version``), and a resumed results file refuses a
mix. Bump it whenever the same input, model, prompt versions, settings and engine build could
score differently: a change to the pipeline that no prompt version or recorded setting captures.
``pyproject.toml`` reads it from here.
"""

__version__ = "0.3.4"
