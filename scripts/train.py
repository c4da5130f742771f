#!/usr/bin/env python3
"""Train gbot's networks: the same stages as ``gbot train`` (see gbot/train/cli.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gbot.train.cli import cli  # noqa: E402

if __name__ == "__main__":
    cli()
