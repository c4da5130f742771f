"""``gbot tournament``: engine-against-engine tournaments from the command line.

Registered on the ``gbot`` group by :mod:`gbot.cli`; the work is done by
:mod:`gbot.tournament`. Heavy imports happen inside the command, so ``gbot --help`` stays fast.
"""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path
from typing import Any

import click

from gbot.analysis.backends import BACKENDS
from gbot.cli.rules import ALL, rule_options
from gbot.errors import GbotError
from gbot.game.match import MAX_MATCH_LENGTH, Rules

__all__ = ["tournament"]

_PLAYERS_HELP = """\
Players: gbot[,ply=N][,weights=FILE|,eval=heuristic] | gnubg[,ply=N|,skill=LEVEL][,noise=X] |
external:HOST:PORT (or HOST:PORT) | gnubgnn[,ply=N] | random; each may end with ,name=LABEL.
Without ply=, gbot and gnubg play their own default player (gbot 2-ply as gbot serve plays,
gnubg World class, 2-ply); gnubgnn 0-ply. gnubg skill levels: beginner, casual,
intermediate, advanced, expert, worldclass, grandmaster."""


@click.command(epilog=_PLAYERS_HELP)
@click.argument("players", nargs=-1)
@click.option("--scheme", type=click.Choice(["head-to-head", "round-robin", "gauntlet"]),
              default=None, help="Who meets whom (default: head-to-head for two players, "
              "else round-robin). Gauntlet: the first player against each other one.")
@click.option("--length", type=click.IntRange(0, MAX_MATCH_LENGTH), default=0, show_default=True,
              help="Match length in points; 0 plays money games.")
@click.option("-n", "--games", type=click.IntRange(1), default=100, show_default=True,
              help="Games (money) or matches per pairing; even with duplicate dice.")
@click.option("--duplicate/--no-duplicate", default=True, show_default=True,
              help="Play every dice sequence twice with the seats swapped.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of all dice.")
@click.option("--out", "out", type=click.Path(file_okay=False), default=None,
              help="Results folder (default: tournaments/<time>). Running again into the "
              "same folder resumes.")
@click.option("--resume", "resume", type=click.Path(file_okay=False, exists=True),
              default=None, help="Resume the tournament saved in this folder (its settings).")
@click.option("--workers", "-j", type=click.IntRange(1), default=None,
              help="Worker processes (default: all cores).")
@click.option("--backend", type=click.Choice(BACKENDS), default="process",
              show_default=True, help="Where games run; ray needs the optional ray package.")
@click.option("--ray-address", default=None, help="Ray cluster address (default: local).")
@rule_options(*ALL)
@click.option("--max-games", type=click.IntRange(1), default=None,
              help="Stop (resumably) after this many new games.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar on stderr.")
def tournament(players: tuple[str, ...], scheme: str | None, length: int, games: int,
               duplicate: bool, seed: int, out: str | None, resume: str | None,
               workers: int | None, backend: str, ray_address: str | None, rules: Rules,
               max_games: int | None, quiet: bool) -> None:
    """Play engines against each other and report who is stronger.

    Example: gbot tournament gbot gnubg,ply=0 random --scheme gauntlet -n 200

    Results go to a folder: games.jsonl (one record per game), mat/ (every match as a
    Jellyfish .mat file), report.txt, report.html and results.json.
    """
    from gbot.tournament import TournamentConfig, load_config, run
    from gbot.tournament.report import summarize, text
    from gbot.tournament.runner import preflight

    try:
        if resume:
            if players:
                raise click.UsageError("give players or --resume, not both")
            folder = Path(resume)
            config = load_config(folder)
        else:
            if len(players) < 2:
                raise click.UsageError("name two players or more (or --resume FOLDER)")
            rules = rules.in_force(length)
            config = TournamentConfig(
                tuple(players), scheme or ("head-to-head" if len(players) == 2
                                           else "round-robin"),
                length, games, duplicate, seed, rules)
            folder = Path(out) if out else Path("tournaments") / time.strftime("%Y%m%d-%H%M%S")
        preflight(config, backend)      # players and backend, before the folder exists
    except GbotError as exc:
        raise click.BadParameter(str(exc)) from None

    bars: list[Any] = []

    def show(p: object) -> None:
        from gbot.analysis.progress import progress_bar
        from gbot.tournament import Progress

        assert isinstance(p, Progress)
        if quiet:
            return
        if not bars:
            bars.append(progress_bar(p.units_total, "tournament",
                                     "match" if config.length else "game",
                                     initial=p.units_done))
        bar = bars[0]
        bar.n = p.units_done
        bar.set_postfix_str(_standing(p, config.length > 0), refresh=False)
        now = time.monotonic()
        if now - last[0] >= bar.mininterval:
            last[0] = now
            bar.refresh()

    def close() -> None:
        if bars:
            bars[0].close()

    last = [time.monotonic()]

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)    # a polite kill saves and stops like Ctrl-C
    click.echo(f"tournament folder: {folder}", err=True)
    try:
        summary = run(config, folder, backend=backend, workers=workers,
                      ray_address=ray_address, progress=show, stop_after=max_games,
                      check=False)
    except KeyboardInterrupt:
        close()
        if _games_in(folder):
            click.echo(f"interrupted; finished games are saved. Resume with: gbot "
                       f"tournament --resume {folder}", err=True)
        else:
            click.echo("interrupted before any game finished", err=True)
        sys.exit(130)
    except GbotError as exc:
        close()
        if not _games_in(folder):
            raise click.ClickException(f"{exc} (no game was finished)") from None
        raise click.ClickException(f"{exc} (finished games are saved; resume with "
                                   f"gbot tournament --resume {folder})") from None
    close()
    click.echo(text(summarize(summary)), nl=False)
    if not summary.complete:
        click.echo(f"stopped early; resume with: gbot tournament --resume {folder}", err=True)


def _standing(p: Any, matches: bool) -> str:
    """The games so far (with matches) and the first pairings' points per game."""
    parts = [f"{p.games} games"] if matches else []
    parts += [f"{a} v {b} {ppg:+.3f} ppg ({n})" for a, b, n, ppg in p.pairings[:4]]
    if len(p.pairings) > 4:
        parts.append(f"+{len(p.pairings) - 4} pairings")
    return " | ".join(parts)


def _games_in(folder: Path) -> int:
    """Finished games recorded in a tournament folder (0 when there is none)."""
    try:
        with open(folder / "games.jsonl", encoding="utf-8") as fh:
            return sum(1 for line in fh if line.strip())
    except OSError:
        return 0
