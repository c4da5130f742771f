"""Engine-against-engine tournaments: players, the runner, statistics and reports.

``gbot tournament`` (:mod:`gbot.cli.tournament`) is the command line; :func:`run` plays a
:class:`TournamentConfig` into a folder and resumes one that was interrupted.
"""

from __future__ import annotations

from gbot.tournament.config import RunSummary, TournamentConfig, load_config
from gbot.tournament.players import PlayerSpec, parse_player
from gbot.tournament.runner import Progress, run

__all__ = ["PlayerSpec", "Progress", "RunSummary", "TournamentConfig", "load_config",
           "parse_player", "run"]
