"""The ``gbot web`` (HTTP API and page) and ``gbot ubgi`` (UBGI on stdin/stdout) commands."""

from __future__ import annotations

import logging
import sys
from typing import Any

import click

from gbot.cli.rules import rule_options
from gbot.cli.warmup import all_cached, steps
from gbot.engine.engine import PLAY_PLY
from gbot.errors import GbotError
from gbot.game.match import Rules

__all__ = ["COMMANDS", "ubgi", "web"]


def _host_port(listen: str) -> tuple[str, int]:
    host, sep, port = listen.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise click.BadParameter(f"expected HOST:PORT, got {listen!r}", param_hint="--listen")
    return host.strip("[]") or "127.0.0.1", int(port)


@click.command()
@click.option("--listen", default="127.0.0.1:8080", show_default=True, help="HOST:PORT.")
@click.option("--ply", type=click.IntRange(0, 2), default=PLAY_PLY, show_default=True,
              help="Default look-ahead of every request (a request may ask for 0-2; 0 for\n"
                   "speed).")
@rule_options()
@click.option("--threads", type=click.IntRange(1, 64), default=4, show_default=True,
              help="Worker threads for the engine (look-ahead and rollouts get at most half,\n"
                   "the rest is kept for 0-ply requests).")
@click.option("--timeout", type=click.FloatRange(0.1, 600), default=20.0, show_default=True,
              help="Seconds a request may wait for a thread and compute before it is\n"
                   "answered 503 (and its work stopped).")
@click.option("--max-body", type=click.IntRange(256, 1 << 20), default=16384,
              show_default=True, help="Largest request body in bytes (413 beyond).")
@click.option("-v", "--verbose", is_flag=True, help="Log every request.")
def web(listen: str, ply: int, rules: Rules, threads: int, timeout: float, max_body: int,
        verbose: bool) -> None:
    """Serve the HTTP API (wildbg's GET /move and /eval, gbot's POST /hint, /eval, /cube,
    /rollout) and the web page on LISTEN. Needs the web extra: pip install gbot[web].

    The page is at /, the interactive API docs at /docs, the OpenAPI document at
    /openapi.json. The rule switches are the defaults of requests that do not set them.
    """
    try:
        import uvicorn

        from gbot.adapters.web.app import create_app, server_config
        from gbot.adapters.web.service import Service
    except ImportError as exc:
        raise click.ClickException(f"gbot web needs the web extra (pip install gbot[web]): "
                                   f"{exc}") from None

    host, port = _host_port(listen)
    try:
        service = Service(rules=rules, ply=ply)
    except GbotError as exc:
        raise click.BadParameter(str(exc)) from None
    service.warm()       # the networks and every kernel a request uses, before listening
    if not all_cached():            # compile (and say so) before listening, not in a request
        for _name, call in steps():
            call()
    app = create_app(service, threads=threads, timeout=timeout, max_body=max_body)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    config = server_config(app, host, port, log_level="info" if verbose else "warning",
                           access_log=verbose)
    server = uvicorn.Server(config)
    started = server.startup

    async def announce(sockets: Any = None) -> None:
        await started(sockets)
        if server.started:      # listening: requests are answered from now on
            click.echo(f"gbot web on http://{host}:{port}/ (ply {ply}; API docs at /docs)",
                       err=True)

    server.startup = announce  # type: ignore[method-assign]
    server.run()


@click.command()
@click.option("--ply", type=click.IntRange(0, 2), default=PLAY_PLY, show_default=True,
              help="Look-ahead in gnubg's numbering (the Ply option; engine.ply is one more); "
                   "0 for speed.")
def ubgi(ply: int) -> None:
    """Speak UBGI (the Universal Backgammon Interface) on stdin and stdout.

    A controller (a GUI, a duel runner such as bgci) sends ubgi, isready, position gnubgid
    ..., dice ..., go; gbot answers bestmove ... (docs/ubgi.md).
    """
    from gbot.adapters.ubgi import main as ubgi_main

    sys.exit(ubgi_main(ply=ply))


COMMANDS = [web, ubgi]
