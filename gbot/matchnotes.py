"""Old import path of :mod:`gbot.records.notes` (the same module object)."""

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbot.records.notes import *  # noqa: F403
else:
    from gbot.records import notes as _owner

    sys.modules[__name__] = _owner
