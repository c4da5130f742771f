"""Old import path of :mod:`gbot.cli.analysis` (the same module object)."""

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbot.cli.analysis import *  # noqa: F403
else:
    from gbot.cli import analysis as _owner

    sys.modules[__name__] = _owner
