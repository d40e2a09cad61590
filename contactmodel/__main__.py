"""``python -m contactmodel``: the ``contactmodel`` command."""

import sys

from contactmodel.cli import main

sys.exit(main())
