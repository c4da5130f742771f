"""Mutation fuzzing of every text surface gbot reads: hostile input must give a value or a
``GbotError`` (or a protocol error reply) within 100 ms, never another exception.

Usage: ``python scripts/fuzz.py [--inputs N] [--seed S] [-j WORKERS] [--surface NAME ...]``.
Prints a table per surface (inputs, crashes, slowest input, inputs over the limit); exit status
1 on any crash. With ``-j``, each worker process fuzzes its share of every surface with its own
mutations (seeded by the seed and the worker's number).
The same surfaces and mutations drive ``tests/test_fuzz.py``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
import urllib.parse
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from gbot.errors import GbotError

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SEEDS = DATA / "fuzz" / "seeds.json"
LIMIT_MS = 100.0

TOKENS: tuple[str, ...] = (
    "0", "1", "6", "9", "25", "-", "+", "--1", "+-1", "-0", "²", "٣", "３", "\x00", "\ud800",
    "9" * 40, "99999999999", "32767", "-32768", "1e9", "0x1f", ":", "::", "/", "//", " ", "  ",
    "\t", "\n", "\r\n", "[", "]", "][", ";", "(", ")", "(99)", "*", "bar", "off", "é", ",",
    "=", "&", "%", "{", "}", '"', "null", "[]", "\ufeff", "·", "\u2028",
)
"""Insertions: digits and signs, non-ASCII digits, NUL, huge numbers, separators."""

OPS = ("insert", "delete", "replace", "repeat", "number", "truncate", "splice")

Op = tuple[str, float, float, int]
"""A mutation: its kind, two positions in [0, 1) and a token (or seed) index."""


def _at(text: str, x: float) -> int:
    return min(len(text), int(x * (len(text) + 1)))


def mutate(text: str, ops: Sequence[Op], pool: Sequence[str] = ()) -> str:
    """``text`` after ``ops`` (see :data:`Op`); ``pool`` gives the texts of ``splice``."""
    for kind, x, y, k in ops:
        i = _at(text, x)
        tok = TOKENS[k % len(TOKENS)]
        if kind == "insert":
            text = text[:i] + tok + text[i:]
        elif kind == "delete":
            text = text[:i] + text[i + 1 + int(y * 8):]
        elif kind == "replace":
            text = text[:i] + tok + text[i + 1:]
        elif kind == "repeat":
            j = min(len(text), i + 1 + int(y * 6))
            text = text[:i] + text[i:j] * (2 + k % 50) + text[j:]
        elif kind == "number":
            digits = [n for n, c in enumerate(text) if c.isdigit()]
            if digits:
                n = digits[int(x * len(digits))]
                end = n
                while end < len(text) and text[end].isdigit():
                    end += 1
                text = text[:n] + (tok if k % 3 else str(10 ** (k % 30) - 1)) + text[end:]
        elif kind == "truncate":
            text = text[:i]
        elif kind == "splice" and pool:
            other = pool[k % len(pool)]
            text = text[:i] + other[_at(other, y):]
    return text


def random_ops(rng: random.Random) -> list[Op]:
    """One to four random mutations (none, now and then, to keep valid inputs in the mix)."""
    if rng.random() < 0.03:
        return []
    return [(rng.choice(OPS), rng.random(), rng.random(), rng.randrange(1000))
            for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4)))]


# --- explicit cases (issue 34) -------------------------------------------------------------------
def _mat_of_length(n: int) -> str:
    return (f" {n} point match\n\n Game 1\n alice : 0                  bob : 0\n"
            "  1) 31: 8/5 6/5                 42: 8/4 6/4\n")


HOSTILE: dict[str, list[str]] = {
    "ubgi": ["dice 3 ²", "dice --1 2", "dice +-1 2", "dice ３ 1", "setscore 999999999999 0",
             "setcube -1 0", "position gnubgid ", "newsession length " + "9" * 5000,
             "go role chequer\x00", "setoption name Ply value ٣", "set " + "x " * 600],
    "gnubg_server": ["board:a:b:--1", "board:a:b:+-1" + ":0" * 60, "\x00" * 10, "set ²",
                     "board:" + ":" * 5000],
    "move_text": ["--1", "+-1", "²/1", "24/²", "6/5(99999999999)", "/" * 1000, "bar/" * 300],
    "match_id": ["--1", "+-1", "", "²" * 12, "\x00" * 12],
    "position_id": ["--1", "+-1", "", "²" * 14, "\x00" * 14, "A" * 10000],
    "xgid": ["XGID=--1", "XGID=" + ":" * 10, "XGID=-b----E-C---eE---c-e----B-:0:0:1:²²:0:0:0:0:10",
             "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:" + "9" * 400 + ":10"],
    "fibs_board": ["board:a:b:" + ":".join(["+-1"] * 53), "board:a:b:" + ":".join(["²"] * 53),
                   "board:a:b:" + "9" * 5000],
    "clip": ["5 " + "x " * 3000, "12 alice ²", "3", "--1", "alice moves +-1 .",
             "You roll ² and 1."],
    "situation": ["--1", "+-1", "4HPwATDgc/ABMA:²", "dice 3 ²"],
    "mat": [_mat_of_length(32767), _mat_of_length(10 ** 30), _mat_of_length(-1),
            " ² point match\n", " --1 point match\n", " +-1 point match\n"],
    "sgf": ["(;FF[4]GM[6]MI[length:5][game:0][ws:0][bs:0²])",
            "(;FF[4]GM[6]MI[length:" + "9" * 200 + "][game:0][ws:0][bs:0])",
            "(;FF[4]GM[6]MI[length:32767][game:0][ws:0][bs:0])",
            "(" * 100000, "(;FF[4]GM[6]MI[length:--1])", "(;FF[4]GM[6]MI[length:+-1])"],
    "web_move": ["die1=²&die2=1", "p24=--1&die1=3&die2=1", "p24=+-1&die1=3&die2=1",
                 "x_away=99999999999&o_away=1&die1=3&die2=1"],
    "web_post": ['{"position": "4HPwATDgc/ABMA", "dice": "3²"}', '{"position": "--1"}',
                 '{"position": "4HPwATDgc/ABMA", "ply": "+-1"}', '{"position": [[[[]]]]}',
                 '{"position": "4HPwATDgc/ABMA", "count": 1e999}', "[" * 10000 + "]" * 10000],
}
"""The hostile cases named by issue 34, per surface, tried before any mutation."""


# --- surfaces ----------------------------------------------------------------------------------
@cache
def _evaluator() -> Any:
    import gbot
    ev = gbot.Evaluator()
    ev.warm()
    return ev


def _engine(rules: Any = None, ply: int = 0) -> Any:
    from gbot.engine.engine import Engine
    return Engine(evaluator=_evaluator(), ply=0, rules=rules, cube_ply=0)


@cache
def _service() -> Any:
    from gbot.adapters.web.service import Service

    class ZeroPly(Service):
        """The API with 0-ply cube decisions too."""

        def engine(self, rules: Any, ply: int, cube_ply: int | None = None) -> Any:
            return _engine(rules)

    return ZeroPly(evaluator=_evaluator())


def _position_id(s: str) -> object:
    from gbot.game.notations import position_id
    from gbot.game.position import Position
    position_id.decode(s)
    return Position.from_id(s)


def _match_id(s: str) -> object:
    from gbot.game.notations import match_id
    return match_id.decode(s)


def _xgid(s: str) -> object:
    from gbot.game.notations.xgid import parse_xgid
    return parse_xgid(s)


def _fibs_board(s: str) -> object:
    from gbot.game.notations.fibs_board import parse_fibs_board
    fb = parse_fibs_board(s)
    return fb.position, fb.state


def _move_text(s: str) -> object:
    from gbot.game.notations.move_text import parse_move
    from gbot.game.position import Position
    parse_move(s)
    return Position.initial().play_from_text(s, (3, 1))


def _situation(s: str) -> object:
    from gbot.game.position_text import read_situation
    return read_situation(s)


def _clip(s: str) -> object:
    from gbot.adapters.fibs.clip import parse_line
    return parse_line(s)


def _gnubg_server(s: str) -> object:
    from gbot.adapters.gnubg_external import Session, handle_line
    from gbot.game.match import Rules
    reply = handle_line(Session(_engine(Rules(jacoby=True, beavers=True))), s)
    handle_line(Session(_engine(Rules(jacoby=True, beavers=True))), s.encode("utf-8", "replace"))
    return reply


def _ubgi(s: str) -> object:
    from gbot.adapters.ubgi import UbgiSession
    session = UbgiSession(lambda rules, ply: _engine(rules))
    for setup in ("newgame", "dice 3 1"):
        session.handle(setup)
    return session.handle(s)


def _mat(s: str) -> object:
    from gbot.records import matfile
    return matfile.loads(s)


def _sgf(s: str) -> object:
    from gbot.records import sgf_read
    return sgf_read.loads(s)


def _web_move(s: str) -> object:
    params = {k: v[-1] for k, v in urllib.parse.parse_qs(s, keep_blank_values=True).items()}
    return _service().wildbg_move(params)


def _web_post(s: str) -> object:
    try:
        body = json.loads(s)
    except (ValueError, RecursionError):
        return None                       # the app answers 400 before the service sees it
    svc = _service()
    return [call(body) for call in (svc.hint, svc.evaluate, svc.cube) if _ok(call, body)]


def _ok(call: Callable[[Any], Any], body: Any) -> bool:
    try:
        call(body)
    except GbotError:
        return False
    return True


@dataclass
class Surface:
    """One parser or protocol handler under fuzz: its call, its seeds, its share of inputs."""

    name: str
    call: Callable[[str], object]
    weight: float
    seeds: list[str] = field(default_factory=list)


def _file_seeds(kind: str) -> list[str]:
    paths = sorted(DATA.glob(f"*.{kind}")) + sorted((DATA / "files").glob(f"*.{kind}"))
    return [p.read_text() for p in paths if p.stat().st_size < 20_000]


def surfaces() -> list[Surface]:
    """Every surface with its seed corpus (``tests/data/fuzz/seeds.json`` and real files)."""
    seeds = json.loads(SEEDS.read_text())
    table = [
        Surface("position_id", _position_id, 1.0), Surface("match_id", _match_id, 1.0),
        Surface("xgid", _xgid, 1.0), Surface("fibs_board", _fibs_board, 1.0),
        Surface("move_text", _move_text, 1.0), Surface("situation", _situation, 1.0),
        Surface("clip", _clip, 1.0), Surface("gnubg_server", _gnubg_server, 0.6),
        Surface("ubgi", _ubgi, 0.6), Surface("mat", _mat, 0.15), Surface("sgf", _sgf, 0.15),
        Surface("web_move", _web_move, 0.2), Surface("web_post", _web_post, 0.15),
    ]
    for s in table:
        s.seeds = list(seeds.get(s.name, [])) or _file_seeds(s.name)
    return table


def classify(call: Callable[[str], object], text: str) -> tuple[float, str | None]:
    """(milliseconds taken, None or the crash: the exception's last traceback line)."""
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(text)
        crash = None
    except GbotError:
        crash = None
    except BaseException as exc:  # noqa: BLE001 - anything else is the finding
        if isinstance(exc, KeyboardInterrupt):
            raise
        crash = traceback.format_exception_only(type(exc), exc)[-1].strip()
        tb = traceback.extract_tb(exc.__traceback__)
        if tb:
            crash += f"  [{Path(tb[-1].filename).name}:{tb[-1].lineno}]"
    return (time.perf_counter() - t0) * 1000.0, crash


@dataclass
class Tally:
    """What one surface's run found."""

    inputs: int = 0
    crashes: list[tuple[str, str]] = field(default_factory=list)
    slowest_ms: float = 0.0
    slowest: str = ""
    over: int = 0
    seconds: float = 0.0


def run(surface: Surface, n: int, rng: random.Random, tally: Tally,
        tick: Callable[[int], None] = lambda _n: None, fixed_first: bool = True) -> None:
    """``n`` inputs of ``surface`` (its hostile cases and seeds first unless not
    ``fixed_first``) into ``tally``."""
    fixed = HOSTILE.get(surface.name, []) + surface.seeds if fixed_first else []
    for seed in surface.seeds:                    # loads networks, compiles kernels
        classify(surface.call, seed)
    t0 = time.perf_counter()
    for i in range(n):
        text = fixed[i] if i < len(fixed) else mutate(
            rng.choice(surface.seeds), random_ops(rng), surface.seeds)
        ms, crash = classify(surface.call, text)
        tally.inputs += 1
        if crash is not None:
            tally.crashes.append((text, crash))
        if ms > tally.slowest_ms:
            tally.slowest_ms, tally.slowest = ms, text
        if ms > LIMIT_MS:
            tally.over += 1
        if i % 200 == 199:
            tick(200)
    tally.seconds += time.perf_counter() - t0


def _worker(names: list[str], shares: list[int], seed: int, worker: int,
            workers: int) -> dict[str, Tally]:
    """Worker ``worker`` of ``workers``: its part of each named surface's share."""
    table = {s.name: s for s in surfaces()}
    out: dict[str, Tally] = {}
    for name, n in zip(names, shares, strict=True):
        part = n // workers + (1 if worker < n % workers else 0)
        out[name] = Tally()
        run(table[name], part, random.Random(f"{seed}:{worker}:{name}"), out[name],
            fixed_first=worker == 0)
    return out


def _fuzz(table: list[Surface], shares: list[int], seed: int, workers: int,
          tick: Callable[[int], None]) -> dict[str, Tally]:
    """Every surface's tally: in this process, or summed over ``workers`` processes."""
    tallies: dict[str, Tally] = {}
    if workers <= 1:
        for s, n in zip(table, shares, strict=True):
            tallies[s.name] = Tally()
            run(s, n, random.Random(f"{seed}:{s.name}"), tallies[s.name], tick)
        return tallies
    from concurrent.futures import ProcessPoolExecutor, as_completed

    names = [s.name for s in table]
    with ProcessPoolExecutor(workers) as pool:
        futures = [pool.submit(_worker, names, shares, seed, w, workers)
                   for w in range(workers)]
        for f in as_completed(futures):
            for name, t in f.result().items():
                into = tallies.setdefault(name, Tally())
                into.inputs += t.inputs
                into.crashes += t.crashes
                into.over += t.over
                into.seconds += t.seconds
                if t.slowest_ms > into.slowest_ms:
                    into.slowest_ms, into.slowest = t.slowest_ms, t.slowest
            tick(sum(t.inputs for t in f.result().values()))
    return tallies


def main(argv: list[str] | None = None) -> int:
    """Run the fuzzer; 1 on any crash."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--surface", action="append", help="only these surfaces")
    ap.add_argument("-j", "--workers", type=int, default=1, help="worker processes")
    args = ap.parse_args(argv)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    table = [s for s in surfaces() if not args.surface or s.name in args.surface]
    total_w = sum(s.weight for s in table)
    shares = [max(1, round(args.inputs * s.weight / total_w)) for s in table]
    total = sum(shares)
    done = 0
    start = time.perf_counter()
    last = 0.0

    def tick(k: int) -> None:
        nonlocal done, last
        done += k
        now = time.perf_counter()
        if now - last > 5:
            last = now
            rate = done / (now - start)
            eta = (total - done) / rate if rate else 0
            print(f"\r{done:>9}/{total} inputs, {rate:,.0f}/s, ETA {eta / 60:.1f} min",
                  end="", file=sys.stderr, flush=True)

    tallies = _fuzz(table, shares, args.seed, args.workers, tick)
    print(file=sys.stderr)
    print(f"{'surface':<13} {'inputs':>9} {'inputs/s':>9} {'crashes':>8} {'slowest ms':>11} "
          f"{'>100 ms':>8}")
    for name, t in tallies.items():
        rate = t.inputs / t.seconds if t.seconds else 0
        print(f"{name:<13} {t.inputs:>9} {rate:>9,.0f} {len(t.crashes):>8} {t.slowest_ms:>11.1f} "
              f"{t.over:>8}")
    print(f"{'total':<13} {sum(t.inputs for t in tallies.values()):>9} {'':>9} "
          f"{sum(len(t.crashes) for t in tallies.values()):>8}")
    for name, t in tallies.items():
        print(f"{name}: slowest input {t.slowest[:120]!r}")
        for text, crash in t.crashes[:3]:
            print(f"  CRASH {name}: {text[:200]!r}\n        {crash}")
    return 1 if any(t.crashes for t in tallies.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
