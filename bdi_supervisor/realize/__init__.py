"""FlexBE realization: supervisor machine model, behavior package generator, round-trip reader."""
