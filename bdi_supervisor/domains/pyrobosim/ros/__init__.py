"""The PyRoboSim domain's ROS nodes: the world node that serves a mission's world to FlexBE
(``runner:=flexbe``)."""
