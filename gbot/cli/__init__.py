"""The ``gbot`` command line: a click group; each tool adds its own subcommand.

The subcommands live beside it: :mod:`gbot.cli.tools` (hint, eval, rollout, train, ...),
:mod:`gbot.cli.play`, :mod:`gbot.cli.tournament`, :mod:`gbot.cli.fibs`, :mod:`gbot.cli.web`
(web, ubgi), :mod:`gbot.cli.analysis`; :mod:`gbot.cli.logs` sets up logging.
"""

from __future__ import annotations

import sys

import click

from gbot.cli.depth import cube_ply_option, play_ply_option
from gbot.cli.logs import check_log_file, setup_logging
from gbot.cli.rules import rule_options
from gbot.cli.warmup import COMPILE_NOTICE, warmup_command
from gbot.engine.engine import Engine
from gbot.engine.warmup import watch_compiles
from gbot.errors import GbotError
from gbot.game.match import Rules
from gbot.game.variations import VARIATIONS, checkers_per_side
from gbot.version import __version__

__all__ = ["main"]


class _Gbot(click.Group):
    """The ``gbot`` group: remembers whether the command line asks for help (a help text
    compiles nothing)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["gbot.help"] = "--help" in args or "-h" in args
        return super().parse_args(ctx, args)


@click.group(cls=_Gbot)
@click.version_option(__version__, prog_name="gbot")
@click.pass_context
def main(ctx: click.Context) -> None:
    """gbot, a backgammon bot for GNU Backgammon's external-player protocol and FIBS."""
    if (ctx.invoked_subcommand not in (None, "warmup") and not ctx.resilient_parsing
            and not ctx.meta.get("gbot.help")):
        ctx.with_resource(watch_compiles(lambda: click.echo(COMPILE_NOTICE, err=True)))


def _listen(_ctx: click.Context, param: click.Parameter, value: str) -> str:
    """``--listen``: a bare port number means 127.0.0.1:PORT (not a socket file)."""
    if value.isdigit():
        if not 0 < int(value) < 65536:
            raise click.BadParameter(f"port {value} is not in 1..65535", param=param)
        return f"127.0.0.1:{int(value)}"
    return value


@main.command()
@click.option("--listen", default="127.0.0.1:31000", show_default=True, callback=_listen,
              help="HOST:PORT for TCP (a bare PORT means 127.0.0.1:PORT), or a filesystem\n"
                   "path for a Unix socket (write ./NAME for a file named by digits).")
@play_ply_option
@cube_ply_option
@rule_options()
@click.option("--variation", type=click.Choice(["auto", *VARIATIONS]),
              default="auto", show_default=True,
              help="The variation gnubg plays (its checkers a side); auto reads it from\n"
                   "each board line, any other value refuses lines of other counts.")
@click.option("--max-clients", type=click.IntRange(0), default=64, show_default=True,
              help="Connections served at once (0: no limit); one more gets an Error line.")
@click.option("--idle-timeout", type=click.FloatRange(0), default=3600.0, show_default=True,
              help="Seconds of silence (or to send one line) before a connection is closed\n"
                   "(0: never).")
@click.option("--log", "log_file", type=click.Path(dir_okay=False), default=None,
              callback=check_log_file,
              help="Write a log (connections; every request with --verbose) to this file.")
@click.option("-v", "--verbose", is_flag=True,
              help="Log every request and reply (DEBUG for gbot's own loggers only).")
def serve(listen: str, ply: int, cube_ply: int | None, rules: Rules, variation: str,
          max_clients: int, idle_timeout: float, log_file: str | None, verbose: bool) -> None:
    """Play for a gnubg seat: answer gnubg's external-player protocol on LISTEN.

    In gnubg: ``set player 1 external 127.0.0.1:31000``, then ``new match 5``. Stops cleanly
    on Ctrl-C (SIGINT) or SIGTERM.
    """
    from gbot.adapters.gnubg_server import parse_address
    from gbot.adapters.gnubg_server import serve as run_server

    setup_logging(verbose, log_file, "%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        address = parse_address(listen)
    except GbotError as exc:
        raise click.BadParameter(str(exc)) from None
    engine = Engine(ply=ply, rules=rules, cube_ply=cube_ply)

    def ready(bound: object) -> None:
        from gbot.testing.bench import threads_text

        click.echo(f"gbot {__version__} listening on {bound} (ply {ply}, {engine.backend}, "
                   f"{threads_text(getattr(engine.evaluator, 'threads', 1))})", err=False)
        sys.stdout.flush()

    try:
        code = run_server(address, engine, on_ready=ready, max_clients=max_clients,
                          idle_timeout=idle_timeout or None,
                          checkers=None if variation == "auto" else checkers_per_side(variation))
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {listen!r}: {exc}") from None
    sys.exit(code)


from gbot.cli.tools import COMMANDS as _TOOLS  # noqa: E402

for _cmd in _TOOLS:
    main.add_command(_cmd)

from gbot.cli.tournament import tournament as _tournament  # noqa: E402

main.add_command(_tournament)

from gbot.cli.fibs import fibs as _fibs  # noqa: E402

main.add_command(_fibs)

from gbot.cli.web import COMMANDS as _WEB  # noqa: E402

for _cmd in _WEB:
    main.add_command(_cmd)

from gbot.cli.analysis import COMMANDS as _ANALYSIS  # noqa: E402

for _cmd in _ANALYSIS:
    main.add_command(_cmd)

main.add_command(warmup_command)
