"""ROS 2 side of the runtime monitor.

``port`` (the interface the monitor core implements) and ``stream`` are plain Python;
``monitor_node`` imports rclpy.
"""
