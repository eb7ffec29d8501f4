"""``python -m mpiscope``: the same as the ``mpiscope`` command."""

import sys

from mpiscope.cli import main

sys.exit(main())
