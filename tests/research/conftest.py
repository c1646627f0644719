"""The tests of the hand-run research scripts (``research/scripts/``): that
folder is put on ``sys.path`` so that they import as top-level modules, the
way ``python research/scripts/NAME.py`` runs them."""

import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "research" / "scripts"
if str(SCRIPTS) not in sys.path:
    sys.path.insert(0, str(SCRIPTS))
