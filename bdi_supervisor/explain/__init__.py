"""Explaining unrealizable specs: cores, needed assumptions, counter-strategies, counter-runs.

The entry point is :func:`bdi_supervisor.explain.explanation.explain`.
"""
