"""``python -m sdcflow``: the same as the ``sdcflow`` command."""

import sys

from .cli import main

sys.exit(main())
