#!/usr/bin/env python3
"""Train gbot's networks: the same stages as ``gbot train`` (see gbot/train/cli.py)."""

from __future__ import annotations

from gbot.train.cli import cli

if __name__ == "__main__":
    cli()
