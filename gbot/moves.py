"""Old import path of :mod:`gbot.notations.move_text` (the same module object)."""

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbot.notations.move_text import *  # noqa: F403
else:
    from gbot.notations import move_text as _owner

    sys.modules[__name__] = _owner
