"""PyRoboSim (5.x) logistics domain: world loading and capability adapters.

Importing this package does not import PyRoboSim; :mod:`.world` and :mod:`.adapters` do, so the
rest of bdi_supervisor works without the ``sim`` extra installed.
"""
