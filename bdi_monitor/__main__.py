"""``python -m bdi_monitor``: the ``bdi-monitor`` command line (guarded like
``python -m bdi_supervisor``)."""

import sys

from bdi_supervisor.cli.monitor import main

if __name__ == "__main__":
    sys.exit(main())
