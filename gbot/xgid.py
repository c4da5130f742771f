"""Old import path of :mod:`gbot.notations.xgid` (the same module object)."""

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbot.notations.xgid import *  # noqa: F403
else:
    from gbot.notations import xgid as _owner

    sys.modules[__name__] = _owner
