"""``python -m bdi_supervisor``: the ``bdi-supervisor`` command line. Guarded, because a sweep's
worker processes (forkserver, spawn) import the main module again."""

import sys

from bdi_supervisor.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
