"""The project's FlexBE states of the Two-Rivers catalog (the world: ``two_rivers_world``)."""
