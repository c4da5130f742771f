"""Old import path of :mod:`gbot.cli.play` (the same module object)."""

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbot.cli.play import *  # noqa: F403
else:
    from gbot.cli import play as _owner

    sys.modules[__name__] = _owner
