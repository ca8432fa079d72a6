"""``python -m sdcflow.cli``: the sdcflow command."""

import sys

from . import main

sys.exit(main())
