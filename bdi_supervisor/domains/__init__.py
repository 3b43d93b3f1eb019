"""Simulated domains the embedded executor runs supervisors against."""
