import sys

from bdi_supervisor.cli.monitor import main

sys.exit(main())
