"""`python -m gradual.cli`: the same as the `gradual` command."""

import sys

from . import main

sys.exit(main())
