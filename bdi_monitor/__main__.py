import sys

from bdi_monitor.cli import main

sys.exit(main())
