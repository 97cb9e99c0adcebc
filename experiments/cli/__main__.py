"""`python -m nesyworld.experiments.cli` is the `nesyworld` command."""

import sys

from nesyworld.experiments.cli.main import main

sys.exit(main())
