"""Old import path of :mod:`gbot.records.matfile` (the same module object)."""

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbot.records.matfile import *  # noqa: F403
else:
    from gbot.records import matfile as _owner

    sys.modules[__name__] = _owner
