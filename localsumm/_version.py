"""The package version: below everything, so any layer can record it without importing the facade."""

__version__ = "0.1.0"
