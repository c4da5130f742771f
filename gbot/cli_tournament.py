"""Old import path of :mod:`gbot.cli.tournament` (the same module object)."""

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbot.cli.tournament import *  # noqa: F403
else:
    from gbot.cli import tournament as _owner

    sys.modules[__name__] = _owner
