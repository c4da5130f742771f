"""Old import path of :mod:`gbot.notations.position_id` (the same module object)."""

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbot.notations.position_id import *  # noqa: F403
else:
    from gbot.notations import position_id as _owner

    sys.modules[__name__] = _owner
