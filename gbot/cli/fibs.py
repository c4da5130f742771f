"""``gbot fibs``: run gbot as a bot account on FIBS or a compatible server (CLIP client)."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from types import FrameType

import click

from gbot.cli.depth import cube_ply_option, play_ply_option
from gbot.cli.logs import check_log_file, command_logging
from gbot.core.limits import MAX_MATCH_LENGTH
from gbot.engine.engine import Engine
from gbot.version import __version__

__all__ = ["fibs"]


def _invite(value: str) -> tuple[str, int]:
    name, _, length = value.partition(":")
    if not name or (length and not (length == "unlimited" or (
            length.isdigit() and len(length) <= 3 and int(length) <= MAX_MATCH_LENGTH))):
        raise click.BadParameter(f"--invite takes NAME or NAME:LENGTH (LENGTH up to "
                                 f"{MAX_MATCH_LENGTH} points; 0 or unlimited: unlimited), got "
                                 f"{value!r}")
    return name, 0 if length in ("", "unlimited") else int(length)


@click.command()
@click.option("--host", default="fibs.com", show_default=True, help="Server host name.")
@click.option("--port", type=click.IntRange(1, 65535), default=4321, show_default=True)
@click.option("--user", required=True, help="The bot's account name.")
@click.option("--password-env", default="GBOT_FIBS_PASSWORD", show_default=True,
              help="Environment variable holding the password (asked for when unset).")
@click.option("--client-name", default="gbot", show_default=True,
              help="Client name shown in other users' who lists (one word).")
@play_ply_option
@cube_ply_option
@click.option("--max-length", type=click.IntRange(0, MAX_MATCH_LENGTH), default=7,
              show_default=True, help="Longest match accepted or resumed (0 = any up to "
              f"{MAX_MATCH_LENGTH}).")
@click.option("--unlimited/--no-unlimited", default=False, show_default=True,
              help="Accept invitations to unlimited (money) sessions.")
@click.option("--allow", multiple=True, metavar="NAME",
              help="Only accept invitations from these players (repeatable).")
@click.option("--deny", multiple=True, metavar="NAME",
              help="Ignore invitations from these players (repeatable).")
@click.option("--invite", "invites", multiple=True, metavar="NAME[:LENGTH]",
              help="Invite this player whenever both are free (repeatable; no length = "
                   "unlimited).")
@click.option("--greeting", default="", help="Kibitzed at the start of every match.")
@click.option("--delay", type=click.FloatRange(0, 60), default=1.0, show_default=True,
              help="Seconds to wait before each game reply.")
@click.option("--max-matches", type=click.IntRange(0), default=0, show_default=True,
              help="Log out after this many finished matches (0 = never).")
@click.option("--reconnect-tries", type=click.IntRange(0), default=10, show_default=True,
              help="Failed connection attempts in a row before giving up (0 = no reconnect).")
@click.option("--no-resign", is_flag=True, help="Never offer to resign.")
@click.option("--keepalive", type=click.FloatRange(0), default=600.0, show_default=True,
              help="Seconds of silence before a harmless command keeps the session alive.")
@click.option("--state-file", type=click.Path(dir_okay=False), default=None,
              help="Keep the saved matches in this JSON file, so that a restarted bot "
                   "invites their opponents even on a server without 'show saved'.")
@click.option("--record-dir", type=click.Path(file_okay=False), default=None,
              help="Write every match played (from 0-0) as .mat and .sgf files into this "
                   "folder, at its end or when it is saved.")
@click.option("--log", "log_file", type=click.Path(dir_okay=False), default=None,
              callback=check_log_file, help="Also write the log to this file.")
@click.option("-v", "--verbose", is_flag=True, help="Log every line sent and received "
              "(the password is masked); DEBUG for gbot's own loggers only.")
def fibs(host: str, port: int, user: str, password_env: str, client_name: str, ply: int,
         cube_ply: int | None, max_length: int, unlimited: bool, allow: tuple[str, ...],
         deny: tuple[str, ...],
         invites: tuple[str, ...], greeting: str, delay: float, max_matches: int,
         reconnect_tries: int, no_resign: bool, keepalive: float, state_file: str | None,
         record_dir: str | None, log_file: str | None, verbose: bool) -> None:
    """Play on FIBS (or a compatible server) as a bot account.

    Logs in with CLIP, sets boardstyle 3, turns ready on and notices off, accepts invitations
    within the limits, resumes saved matches (asking the server with 'show saved' at every
    login, and reading --state-file), and reconnects after a dropped connection.
    The password comes from $GBOT_FIBS_PASSWORD (see --password-env) or a prompt, never from
    the command line. Ctrl-C or SIGTERM logs out cleanly.

    Exit status: 0 finished (--max-matches reached), 1 internal error, 2 login refused,
    3 connection lost for good, 4 timed out by the server, 5 stopped by a signal.
    """
    from gbot.adapters.fibs import client as fibs_client
    from gbot.adapters.fibs.client import BotConfig, FibsBot, Reconnect, SavedStore

    password = os.environ.get(password_env) or click.prompt(
        f"FIBS password for {user}", hide_input=True, err=True)
    if any(ch.isspace() for ch in user + client_name + password) or not password:
        raise click.BadParameter("user, client name and password must be single words")
    config = BotConfig(
        user=user, client_name=client_name, max_length=max_length, unlimited=unlimited,
        allow=frozenset(allow), deny=frozenset(deny), greeting=greeting, delay=delay,
        invites=tuple(_invite(v) for v in invites), max_matches=max_matches,
        keepalive=keepalive, resign=not no_resign, record_dir=record_dir or "")
    with command_logging(verbose, log_file, "%(asctime)s %(levelname)s %(message)s"):
        engine = Engine(ply=ply, cube_ply=cube_ply)
        bot = FibsBot(config, engine, password)
        del password
        stop = threading.Event()

        def on_signal(signum: int, _frame: FrameType | None) -> None:
            stop.set()

        old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        logging.getLogger("gbot.fibs").info(
            "gbot %s as %s on %s:%d (ply %d, %s)", __version__, user, host, port, ply,
            engine.backend)
        try:
            reason = fibs_client.run_bot(
                bot, host, port, stop=stop, reconnect=Reconnect(tries=reconnect_tries),
                store=SavedStore(state_file) if state_file else None)
        finally:
            for s, h in old.items():
                signal.signal(s, h)
    won = sum(r.won for r in bot.results)
    click.echo(f"{bot.matches_played} match(es) played, {won} won; stopped: "
               f"{reason.name.lower().replace('_', ' ')}", err=True)
    for r in bot.results:
        click.echo(f"  {'won' if r.won else 'lost'} {r.length}-point match against "
                   f"{r.opponent} {r.score[0]}-{r.score[1]}", err=True)
    sys.exit(int(reason))
