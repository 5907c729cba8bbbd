"""`python -m sidtui` entry point."""

import sys

from sidtui.cli import main

sys.exit(main())
