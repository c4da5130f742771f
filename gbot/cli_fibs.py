"""Old import path of :mod:`gbot.cli.fibs` (the same module object)."""

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbot.cli.fibs import *  # noqa: F403
else:
    from gbot.cli import fibs as _owner

    sys.modules[__name__] = _owner
