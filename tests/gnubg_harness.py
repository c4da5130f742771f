#!/usr/bin/env python3
"""Our referee harness: GNU Backgammon 1.07 plays a match or money session against an
external player (gbot's server, or any bot speaking gnubg's external-player protocol).

gnubg runs in tty mode (``gnubg -t -q -r -p SCRIPT``) with a private ``HOME``. The script it
runs (written below, executed by gnubg's embedded Python) seats gnubg's own engine on one side,
declares the other seat ``external ADDR`` (gnubg connects to the bot), plays until the match or
session is over, re-issues ``play`` when gnubg stopped on a bad reply (a *stall*), saves the
match as ``.sgf`` and writes a JSON report with every game record.

Back in ordinary Python, :func:`play` turns that report into a :class:`HarnessResult`: the
final score, gnubg's console error lines (``protocol_errors``), the stalls, and the *forfeits*:
gnubg 1.07 silently records an illegal, incomplete or unreadable move reply as "no move", so
every empty move of the external seat is checked against the rules by an independent
can-this-roll-be-played test written here.

It also reads match files the way gnubg does (:func:`read_matches`: games, scores and final
score of each file gnubg 1.07 imports), for the tests and ``scripts/compare_published.py``.

Standard library only, so ``scripts/run`` and ``scripts/bench_server.py`` can use it too::

    python3 tests/gnubg_harness.py --external 127.0.0.1:31000 --match 3 --save m.sgf
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["GnubgServer", "GnubgView", "HarnessResult", "MoveRecord", "find_gnubg", "play",
           "read_matches", "roll_playable", "run_script"]

# Console lines of gnubg 1.07 that mean the external seat misbehaved or the link broke.
CONSOLE_ERRORS = (
    "External connection closed",
    "badly formed",
    "reading from external connection",
    "writing to external connection",
    "Connection refused",
    "Error:",
    "Error (",
    "Illegal move",
    "Unknown keyword",
)

# Runs inside gnubg. Reads its settings from $GBOT_HARNESS_CFG, writes $cfg["report"].
_INSIDE_GNUBG = r'''
import json, os, time
import gnubg

cfg = json.load(open(os.environ["GBOT_HARNESS_CFG"]))
report = {"finished": False, "stalls": 0, "beaver_pauses": 0, "notes": [], "games": [],
          "records": []}


def run(text):
    gnubg.command(text)


def current_games():
    try:
        m = gnubg.match()
    except Exception:
        return None
    return m or None


def in_progress(m):
    return m is not None and bool(m["games"]) and m["games"][-1]["info"].get("winner") is None


def points(m):
    tally = {"X": 0, "O": 0}
    for g in (m["games"] if m else []):
        w = g["info"].get("winner")
        if w in tally:
            tally[w] += g["info"].get("points-won", 0)
    return tally


try:
    bot_seat, own_seat = cfg["bot_seat"], 1 - cfg["bot_seat"]
    for text in (
        "set rng mersenne",
        "set seed %d" % cfg["seed"],
        "set threads 1",
        "set cube use %s" % ("on" if cfg["cube"] else "off"),
        "set jacoby %s" % ("on" if cfg["jacoby"] else "off"),
        "set beavers %d" % cfg["beavers"],
        "set automatic game off",
        "set defaultnames %s %s" % tuple(cfg["names"]),
        "set player %d gnubg" % own_seat,
        "set player 0 name %s" % cfg["names"][0],
        "set player 1 name %s" % cfg["names"][1],
    ):
        run(text)
    for part in ("chequerplay", "cubedecision"):
        run("set player %d %s evaluation plies %d" % (own_seat, part, cfg["plies"]))
        run("set player %d %s evaluation cubeful on" % (own_seat, part))
        run("set player %d %s evaluation noise %f" % (own_seat, part, cfg["noise"]))
    run("set player %d external %s" % (bot_seat, cfg["external"]))

    start = time.time()

    def out_of_time():
        if time.time() - start > cfg["budget"]:
            report["notes"].append("time budget spent")
            return True
        return False

    def after_beaver(m):
        # gnubg 1.07 stops auto-play after a beaver was taken (double, double, take)
        acts = [(r.get("action"), r.get("player")) for r in m["games"][-1]["game"][-3:]]
        return (len(acts) == 3 and [a for a, _ in acts] == ["double", "double", "take"]
                and acts[0][1] == acts[2][1] != acts[1][1])

    def finish_game(m):
        # gnubg stops when it got a reply it could not use; "play" asks again.
        while in_progress(m) and report["stalls"] < cfg["max_stalls"] and not out_of_time():
            if after_beaver(m) and report["beaver_pauses"] < 1000:
                report["beaver_pauses"] += 1
            else:
                report["stalls"] += 1
                last = [(r.get("action"), r.get("player")) for r in m["games"][-1]["game"][-3:]]
                print("gbot-harness: stall %d after %r, asking again with 'play'"
                      % (report["stalls"], last))
            run("play")
            m = current_games()
        return m

    if cfg.get("variation"):
        run("set variation %s" % cfg["variation"])
    if cfg["match"]:
        run("new match %d" % cfg["match"])
        m = finish_game(current_games())
        while (m is not None and not in_progress(m) and max(points(m).values()) < cfg["match"]
               and not out_of_time()):
            run("new game")
            m = finish_game(current_games())
    else:
        run("new session")
        m = finish_game(current_games())
        while (m is not None and not in_progress(m) and len(m["games"]) < cfg["games"]
               and not out_of_time()):
            run("new game")
            m = finish_game(current_games())
    report["elapsed"] = time.time() - start

    m = current_games()
    if m is not None and cfg["save"]:
        # save, then read the saved file back: the checks below run on what was saved
        run('save match "%s"' % cfg["save"])
        run("set confirm new off")
        run('load match "%s"' % cfg["save"])
        m = current_games()
        report["reloaded"] = True
    if m is not None:
        report["match_info"] = {k: m["match-info"].get(k) for k in ("X", "O", "match-length")}
        for gi, g in enumerate(m["games"]):
            report["games"].append(g["info"])
            for rec in g["game"]:
                action = rec.get("action")
                if action not in ("move", "double", "take", "drop", "resign", "accept", "reject"):
                    continue
                report["records"].append({
                    "game": gi, "action": action, "player": rec.get("player"),
                    "board": rec.get("board"), "dice": list(rec.get("dice") or ()),
                    "move": [list(step) for step in (rec.get("move") or ())],
                    "points": rec.get("points"),
                })
    report["finished"] = True
except Exception as exc:
    report["notes"].append("exception inside gnubg: %r" % (exc,))
with open(cfg["report"], "w") as fh:
    json.dump(report, fh)
'''


def find_gnubg() -> str | None:
    """Path of Debian's ``gnubg`` binary, or None when it is not installed."""
    found = shutil.which("gnubg")
    if found:
        return found
    return "/usr/games/gnubg" if os.access("/usr/games/gnubg", os.X_OK) else None


def _decode_position_id(pid: str) -> tuple[list[int], list[int]]:
    """The two 25-slot arrays ``(opponent, on_roll)`` of a gnubg Position ID (self-contained)."""
    raw = __import__("base64").b64decode(pid + "==")
    bits = [(raw[k // 8] >> (k % 8)) & 1 for k in range(80)]
    slots = [0] * 50
    slot = 0
    for bit in bits:
        if slot >= 50:
            break
        if bit:
            slots[slot] += 1
        else:
            slot += 1
    return slots[:25], slots[25:]


def roll_playable(pid: str, dice: tuple[int, int] | list[int]) -> bool:
    """True when at least one checker of the side on roll in ``pid`` can move with ``dice``.

    gnubg arrays: index ``i`` is the owner's point ``i + 1``, index 24 the bar. One playable
    die is enough to prove that an empty move was a forfeit.
    """
    opp, me = _decode_position_id(pid)
    for die in set(dice):
        if me[24]:
            if opp[die - 1] < 2:
                return True
            continue
        all_home = sum(me[6:25]) == 0
        for i in range(24):
            if not me[i]:
                continue
            dest = i - die
            if dest >= 0:
                if opp[23 - dest] < 2:
                    return True
            elif all_home and (dest == -1 or sum(me[i + 1:6]) == 0):
                return True
    return False


@dataclass
class MoveRecord:
    """One decision recorded in the match: who, what, on which position (Position ID)."""

    game: int
    action: str
    player: str
    board: str | None
    dice: list[int]
    move: list[list[int]]
    points: int | None = None


@dataclass
class HarnessResult:
    """What one gnubg run produced, from the external player's point of view."""

    complete: bool
    games: int
    bot_points: int
    gnubg_points: int
    protocol_errors: list[str]
    forfeits: list[str]
    stalls: int
    elapsed: float
    beaver_pauses: int
    timed_out: bool
    gnubg_status: int | None
    saved: Path | None
    bot_seat: int
    records: list[MoveRecord] = field(default_factory=list)
    """Every decision of the match, read back from the saved file when there is one."""
    notes: list[str] = field(default_factory=list)
    reloaded: bool = False
    """The records come from the saved match file, loaded back into gnubg."""
    console: str = ""

    @property
    def bot_key(self) -> str:
        """gnubg's name for the bot's seat in match records: ``X`` = player 0, ``O`` = 1."""
        return "X" if self.bot_seat == 0 else "O"

    @property
    def clean(self) -> bool:
        """Finished, with no console error, stall, forfeit or timeout."""
        return (self.complete and not self.protocol_errors and not self.forfeits
                and not self.stalls and not self.timed_out)

    def bot_moves(self) -> list[MoveRecord]:
        """The external seat's move records."""
        return [r for r in self.records if r.action == "move" and r.player == self.bot_key]

    def summary(self) -> str:
        """One ``RESULT ...`` line."""
        return (f"RESULT games={self.games} complete={'yes' if self.complete else 'no'} "
                f"gbot={self.bot_points} gnubg={self.gnubg_points} "
                f"protocol_errors={len(self.protocol_errors)} forfeits={len(self.forfeits)} "
                f"stalls={self.stalls} beaver_pauses={self.beaver_pauses} "
                f"elapsed={self.elapsed:.1f}s"
                + (f" saved={self.saved}" if self.saved else ""))


def play(external: str, *, match: int = 0, games: int = 0, bot_seat: int = 1, plies: int = 0,
         noise: float = 0.0, seed: int = 1, cube: bool = True, jacoby: bool = False,
         beavers: int = 3, save: str | Path | None = None, timeout: float = 600.0,
         max_stalls: int = 3, names: tuple[str, str] = ("gnubg", "gbot"),
         gnubg: str | None = None, variation: str | None = None) -> HarnessResult:
    """Have gnubg play ``match`` points (or ``games`` money games) against the bot at ``external``.

    ``bot_seat`` is gnubg's player number for the bot (1 = positive checkers). ``names`` are
    (gnubg's seat, the bot's seat). ``variation`` is gnubg's name for one (``standard``,
    ``nackgammon``, ``1-chequer-hypergammon``, ...; default: gnubg's default, standard).
    Blocks until gnubg is done or ``timeout`` seconds passed.
    """
    if bool(match) == bool(games):
        raise ValueError(f"give exactly one of match={match!r} and games={games!r}")
    binary = gnubg or find_gnubg()
    if binary is None:
        raise FileNotFoundError("gnubg is not installed (Debian package 'gnubg')")
    work = Path(tempfile.mkdtemp(prefix="gbot_harness_"))
    seat_names = [names[0], names[1]] if bot_seat == 1 else [names[1], names[0]]
    cfg: dict[str, Any] = {
        "external": external, "match": match, "games": games, "bot_seat": bot_seat,
        "plies": plies, "noise": noise, "seed": seed, "cube": cube, "jacoby": jacoby,
        "beavers": beavers, "names": seat_names, "max_stalls": max_stalls,
        "variation": variation,
        "budget": max(5.0, timeout - 15.0),
        "save": str(Path(save).resolve()) if save else None,
        "report": str(work / "report.json"),
    }
    (work / "cfg.json").write_text(json.dumps(cfg))
    (work / "inside.py").write_text(_INSIDE_GNUBG)
    env = dict(os.environ, GBOT_HARNESS_CFG=str(work / "cfg.json"), HOME=str(work))
    t0 = time.monotonic()
    timed_out = False
    status: int | None
    try:
        proc = subprocess.run([binary, "-t", "-q", "-r", "-p", str(work / "inside.py")],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, env=env, cwd=work, timeout=timeout)
        console = proc.stdout.decode("utf-8", "replace")
        status = proc.returncode
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or b""
        console = out.decode("utf-8", "replace") if isinstance(out, bytes) else out
        timed_out, status = True, None
    wall = time.monotonic() - t0
    try:
        report = json.loads((work / "report.json").read_text())
    except (OSError, ValueError):
        report = {"finished": False, "stalls": 0, "games": [], "records": [],
                  "notes": ["gnubg wrote no report"]}
    shutil.rmtree(work, ignore_errors=True)

    errors = [ln.strip() for ln in console.splitlines() if any(m in ln for m in CONSOLE_ERRORS)]
    if status not in (0, None):
        errors.append(f"gnubg exited with status {status}")
    bot_key = "X" if bot_seat == 0 else "O"
    tally = {"X": 0, "O": 0}
    finished = 0
    for info in report.get("games", []):
        if info.get("winner") in tally:
            tally[info["winner"]] += int(info.get("points-won", 0))
            finished += 1
    bot_pts, gnubg_pts = tally[bot_key], tally["O" if bot_key == "X" else "X"]
    complete = (max(bot_pts, gnubg_pts) >= match) if match else finished == games
    records = [MoveRecord(**r) for r in report.get("records", [])]
    forfeits = [f"game {r.game + 1} dice {r.dice} position {r.board}" for r in records
                if r.action == "move" and r.player == bot_key and not r.move and r.board
                and r.dice and roll_playable(r.board, r.dice)]
    notes = list(report.get("notes", []))
    if not report.get("finished"):
        notes.append("gnubg did not finish its script")
    saved = Path(cfg["save"]) if cfg["save"] and Path(cfg["save"]).exists() else None
    return HarnessResult(
        complete=complete and not timed_out, games=finished, bot_points=bot_pts,
        gnubg_points=gnubg_pts, protocol_errors=errors, forfeits=forfeits,
        stalls=int(report.get("stalls", 0)), elapsed=float(report.get("elapsed", wall)),
        beaver_pauses=int(report.get("beaver_pauses", 0)),
        timed_out=timed_out, gnubg_status=status, saved=saved, bot_seat=bot_seat,
        records=records, notes=notes, console=console,
        reloaded=bool(report.get("reloaded")))


class GnubgServer:
    """gnubg's own ``external ADDR`` server (the reference bot), as a context manager.

    ``with GnubgServer("127.0.0.1:31500", plies=0) as srv:`` starts ``gnubg -t``, sets the
    chequer and cube look-ahead, types ``external ADDR`` and waits until gnubg listens. gnubg
    serves one client at a time and listens again after that client leaves. Leaving the block
    interrupts gnubg (SIGINT), then closes its input so that it quits.
    """

    def __init__(self, addr: str, *, plies: int = 0, gnubg: str | None = None,
                 ready_timeout: float = 30.0) -> None:
        self.addr = addr
        self.plies = plies
        self.binary = gnubg or find_gnubg()
        self.ready_timeout = ready_timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self.home = ""
        self.console: list[str] = []

    def __enter__(self) -> GnubgServer:
        import threading

        if self.binary is None:
            raise FileNotFoundError("gnubg is not installed (Debian package 'gnubg')")
        self.home = tempfile.mkdtemp(prefix="gbot_gnubg_srv_")
        self.proc = subprocess.Popen([self.binary, "-t", "-q", "-r"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     cwd=self.home, env=dict(os.environ, HOME=self.home))
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write((f"set threads 1\n"
                               f"set evaluation chequerplay evaluation plies {self.plies}\n"
                               f"set evaluation cubedecision evaluation plies {self.plies}\n"
                               f"external {self.addr}\n").encode())
        self.proc.stdin.flush()
        listening = threading.Event()
        stdout = self.proc.stdout

        def pump() -> None:
            for raw in stdout:
                line = raw.decode("utf-8", "replace").rstrip("\n")
                self.console.append(line)
                if "Waiting for a connection" in line:
                    listening.set()

        threading.Thread(target=pump, daemon=True).start()
        if not listening.wait(self.ready_timeout):
            self.__exit__(None, None, None)
            raise RuntimeError(f"gnubg did not listen on {self.addr!r}: {self.console[-5:]!r}")
        return self

    def __exit__(self, *exc: object) -> None:
        import signal

        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                assert proc.stdin is not None
                proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.proc = None
        if self.home:
            shutil.rmtree(self.home, ignore_errors=True)


# --------------------------------------------------------------------------- reading files

def run_script(exe: str, script: str, cases: Any, folder: Path,
               timeout: float = 120.0) -> tuple[Any, str]:
    """Run the Python ``script`` inside gnubg (``exe -t -q -p``, its ``HOME`` in ``folder``):
    it reads ``cases`` (JSON) from the file named by ``$GBOT_CASES`` and writes its answer
    (JSON) to ``$GBOT_OUT``. Returns that answer and what gnubg printed (stdout and stderr)."""
    (folder / "cases.json").write_text(json.dumps(cases))
    (folder / "script.py").write_text(script)
    env = {"GBOT_CASES": str(folder / "cases.json"), "GBOT_OUT": str(folder / "out.json"),
           "HOME": str(folder), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([exe, "-t", "-q", "-p", str(folder / "script.py")], env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          errors="replace", timeout=timeout, check=False)
    return json.loads((folder / "out.json").read_text()), proc.stdout + proc.stderr


# Runs inside gnubg: imports each file and writes what gnubg made of it (null: nothing read).
# Every file's console output follows a line "@@gbot-file N" so it can be told apart.
_READ_MATCHES = r"""
import gnubg, json, os, sys
out = []
for i, (path, command) in enumerate(json.load(open(os.environ["GBOT_CASES"]))):
    print("@@gbot-file %d" % i)
    sys.stdout.flush()
    view = None
    try:
        gnubg.command(command + " " + path)
        m = gnubg.match()
    except Exception as exc:
        print("@@gbot-error %r" % (exc,))
        m = None
    if m:
        info = m["match-info"]
        view = {"length": info["match-length"],
                "names": [info["X"]["name"], info["O"]["name"]],
                "games": [[g["info"]["score-X"], g["info"]["score-O"], g["info"].get("winner"),
                           g["info"].get("points-won")] for g in m["games"]]}
    out.append(view)
    sys.stdout.flush()
json.dump(out, open(os.environ["GBOT_OUT"], "w"))
"""

GNUBG_COMMANDS = {".sgf": "load match", ".mat": "import mat", ".txt": "import mat"}
"""gnubg 1.07's command for a match file, by its extension (it has none for ``.xg``)."""


@dataclass
class GnubgView:
    """What gnubg 1.07 made of one match file: the match length, the names (X, O), per game
    the score before it, its winner (0 for X, 1 for O, -1 for none recorded) and the points it
    scored, and what gnubg printed while reading it. ``read`` is False where gnubg read no
    match (then ``why`` says what it printed, or that it has no command for the file)."""

    read: bool
    length: int = 0
    names: tuple[str, str] = ("", "")
    games: list[tuple[tuple[int, int], int, int]] = field(default_factory=list)
    console: str = ""
    why: str = ""

    @property
    def final_score(self) -> tuple[int, int]:
        """The score after the last game (its points to its winner)."""
        if not self.games:
            return (0, 0)
        (x, o), winner, points = self.games[-1]
        return (x + points * (winner == 0), o + points * (winner == 1))


def read_matches(paths: list[Path], exe: str | None = None, timeout: float = 300.0
                 ) -> list[GnubgView]:
    """gnubg 1.07's reading of each file (``import mat``, or ``load match`` for ``.sgf``), all
    in one gnubg process; a file whose extension gnubg has no command for is not read."""
    exe = exe or find_gnubg()
    if exe is None:
        raise RuntimeError("gnubg is not installed")
    cases = [[str(p.resolve()), GNUBG_COMMANDS[p.suffix.lower()]] for p in paths
             if p.suffix.lower() in GNUBG_COMMANDS]
    with tempfile.TemporaryDirectory(prefix="gbot-gnubg-read-") as tmp:
        views, console = run_script(exe, _READ_MATCHES, cases, Path(tmp), timeout)
    printed: dict[int, str] = {}
    current = -1
    for line in console.splitlines():
        if line.startswith("@@gbot-file "):
            current = int(line.split()[1])
            printed[current] = ""
        elif current >= 0 and line.strip():
            printed[current] += line + "\n"
    out = []
    i = 0
    for p in paths:
        if p.suffix.lower() not in GNUBG_COMMANDS:
            out.append(GnubgView(False, why=f"gnubg 1.07 has no command to read {p.suffix}"))
            continue
        view, text = views[i], printed.get(i, "")
        i += 1
        if view is None:
            first = text.strip().splitlines()[:1]
            out.append(GnubgView(False, console=text, why=first[0] if first else "no match"))
            continue
        games = [((x, o), {"X": 0, "O": 1}.get(w, -1), pts or 0)
                 for x, o, w, pts in view["games"]]
        out.append(GnubgView(True, view["length"], (view["names"][0], view["names"][1]), games,
                             text))
    return out


def main(argv: list[str] | None = None) -> int:
    """Command line: play, print one RESULT line; exit 0 only for a clean, complete run."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--external", required=True, help="the bot's address, HOST:PORT or a path")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--match", type=int, help="play a match to N points")
    mode.add_argument("--games", type=int, help="play N money games")
    ap.add_argument("--bot-seat", type=int, choices=(0, 1), default=1)
    ap.add_argument("--plies", type=int, default=0, help="gnubg's own look-ahead")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-cube", action="store_true")
    ap.add_argument("--jacoby", action="store_true")
    ap.add_argument("--beavers", type=int, default=3)
    ap.add_argument("--save", help="save the match here (.sgf)")
    ap.add_argument("--timeout", type=float, default=600.0)
    args = ap.parse_args(argv)
    res = play(args.external, match=args.match or 0, games=args.games or 0,
               bot_seat=args.bot_seat, plies=args.plies, seed=args.seed, cube=not args.no_cube,
               jacoby=args.jacoby, beavers=args.beavers, save=args.save, timeout=args.timeout)
    print(res.summary())
    for line in (res.protocol_errors + res.forfeits + res.notes)[:20]:
        print("  " + line)
    return 0 if res.clean else 1


if __name__ == "__main__":
    sys.exit(main())
