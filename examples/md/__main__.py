"""``python -m examples.md``: run the molecular dynamics example."""
import sys

from .cli import main

sys.exit(main())
