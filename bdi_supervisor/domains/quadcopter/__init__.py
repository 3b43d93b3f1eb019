"""Quadcopter gate-course domain: course geometry, platform profiles, pose dropouts, a kinematic
model and a RotorPy backend, and the executor adapters of the quadcopter capabilities."""
