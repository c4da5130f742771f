"""Old import path of :mod:`gbot.cli.logs` (the same module object)."""

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbot.cli.logs import *  # noqa: F403
else:
    from gbot.cli import logs as _owner

    sys.modules[__name__] = _owner
