"""Minimal behaviour-preserving strategy reduction (coarsest bisimulation on core outputs)."""

from bdi_supervisor.reduce.reducer import coarsest_partition, masked_outputs, reduce, start_states

__all__ = ["coarsest_partition", "masked_outputs", "reduce", "start_states"]
