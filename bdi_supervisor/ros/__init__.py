"""ROS 2 adapters: thin rclpy nodes over the core.

Only the node modules (``*_node.py``, ``diagnostics``, ``qos``, ``node_main``, ``params``,
``adapters``) import rclpy, and only when imported themselves. ``wire``, ``status`` and
``launch_plan`` are plain Python, so the launch node list and the message formats are testable
without ROS.
"""
