"""Measuring judges: agreement with human labels, speed, agreement between judges, threshold calibration."""
