"""``python -m gbot.cli``: the ``gbot`` command line."""

from gbot.cli import main

main()
