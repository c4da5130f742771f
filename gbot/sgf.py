"""Old import path of :mod:`gbot.records.sgf` (the same module object)."""

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbot.records.sgf import *  # noqa: F403
else:
    from gbot.records import sgf as _owner

    sys.modules[__name__] = _owner
