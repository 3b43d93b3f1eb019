import sys

from bdi_supervisor.cli.main import main

sys.exit(main())
