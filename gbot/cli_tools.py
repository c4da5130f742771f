"""Old import path of :mod:`gbot.cli.tools` (the same module object)."""

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbot.cli.tools import *  # noqa: F403
else:
    from gbot.cli import tools as _owner

    sys.modules[__name__] = _owner
