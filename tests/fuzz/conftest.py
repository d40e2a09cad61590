"""The fuzz suite's helpers (scenes.py, strategies.py) are imported from this folder."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
