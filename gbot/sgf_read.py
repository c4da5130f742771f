"""Old import path of :mod:`gbot.records.sgf_read` (the same module object)."""

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbot.records.sgf_read import *  # noqa: F403
else:
    from gbot.records import sgf_read as _owner

    sys.modules[__name__] = _owner
