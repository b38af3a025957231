"""Comparing summarizers: results files as per-system, per-source tables, and paired statistics over sources."""
