"""ROS 2 adapters of the quadcopter domain: the drone node serving the Flexible Drones interfaces
(``flexible_drones_msgs``) on the simulated drone or a Crazyflie (:mod:`.drone_node`)."""
