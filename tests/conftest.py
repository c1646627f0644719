import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import spiel_game  # noqa: E402,F401  (registers the game)

IN_CI = os.environ.get("CI") == "true"
