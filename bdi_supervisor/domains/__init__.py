"""Simulated domains the embedded executor runs supervisors against.

Importing this package registers every domain's simulator with the runtime (the runtime never
imports a domain): callers at the top layer (the CLI, the supervisor node, the tests) import it
before running a supervisor. A new domain is a subpackage whose ``__init__`` calls
:func:`bdi_supervisor.runtime.binding.register_backend`, imported here.
"""

from bdi_supervisor.domains import pyrobosim, quadcopter

__all__ = ["pyrobosim", "quadcopter"]
