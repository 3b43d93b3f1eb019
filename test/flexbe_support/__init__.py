"""FlexBE test states for the realization tests (imported only where real flexbe_core exists)."""
