"""bdi_supervisor: capability catalogs to audited, reduced, executable GR(1) supervisors.

Pipeline stages, one subpackage each: ``catalog`` and ``mission`` (inputs), ``spec`` (GR(1)
specification model, generation, structuredslugs/slugsin I/O), ``separation`` (well-separation),
``synthesis`` (symbolic GR(1) games on CUDD, strategy extraction), ``audit``, ``reduce``,
``realize`` (supervisor machine, FlexBE code generation), ``runtime`` (embedded executor and
adapters), ``ros`` (thin rclpy nodes, imported only where ROS is present).
"""

from bdi_supervisor import lazyimport as _lazyimport

#: the version of both packages (setup.py reads it here; package.xml is checked against it)
__version__ = "0.1.0"

# dataclasses imports inspect (with ast, dis and tokenize) only to write the docstring of a
# dataclass without one: every command's start-up is spared it (the project's dataclasses have
# docstrings; test/test_cli_startup.py)
_lazyimport.import_deferring("dataclasses", ("inspect",))
