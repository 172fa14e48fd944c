"""`python -m autograder`: see autograder.cli.student."""

import sys

from autograder.cli.student import main

sys.exit(main())
