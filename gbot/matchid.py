"""Old import path of :mod:`gbot.notations.match_id` (the same module object)."""

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbot.notations.match_id import *  # noqa: F403
else:
    from gbot.notations import match_id as _owner

    sys.modules[__name__] = _owner
