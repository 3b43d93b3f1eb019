"""The project's FlexBE states of the beer-robot catalog (the world: ``beer_robot_world``)."""
