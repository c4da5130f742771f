"""Old import path of :mod:`gbot.cli.web` (the same module object)."""

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbot.cli.web import *  # noqa: F403
else:
    from gbot.cli import web as _owner

    sys.modules[__name__] = _owner
