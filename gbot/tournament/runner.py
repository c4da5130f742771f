"""The tournament runner: who plays whom, with which dice, in what order, and where it is saved.

A :class:`TournamentConfig` fixes everything that decides the games: the players (spec texts),
the pairing scheme (``head-to-head``, ``round-robin``, ``gauntlet``: the first player against
each of the others), money games or ``length``-point matches, how many per pairing, duplicate
dice, the seed and the rule switches. :func:`run` plays it into a folder:

* ``tournament.json``: the configuration (a later run in the same folder must match it);
* ``games.jsonl``: one record per finished game (:mod:`gbot.tournament.records`);
* ``mat/``: every match as a Jellyfish ``.mat`` file (a money pairing as two sessions, one per
  seating), written again from the records at the end of each run;
* ``results.json``, ``report.txt``, ``report.html``: the tables (:mod:`~gbot.tournament.report`).

Units and duplicate dice: each pairing plays ``units`` units; a unit is one money game or one
match. With duplicate dice every unit is played twice (mirror 0: A in seat 0; mirror 1: B in
seat 0) and game ``g`` of unit ``u`` draws its rolls from a stream seeded by
``(seed, u, g)`` only, so both mirrors (and every pairing) get the same rolls in the same order:
the opening roll goes to the same seat, and each player gets, turn for turn, the rolls its
opponent had in the other mirror. Without duplicate dice each unit is played once, seats
alternating.

Resuming: running the same configuration into the same folder plays only what is missing. A
money game or match game is recorded when it ends; games that were in flight at the
interruption are simply played again (they were never recorded), and an unfinished match goes
on from the state after its last recorded game.
"""

from __future__ import annotations

import json
import socket
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from gbot.analysis.backends import make_backend
from gbot.errors import BackendError, GbotError, PlayerError, TournamentError
from gbot.eval.net import Networks
from gbot.game.match import MatchState
from gbot.game.referee import MatchRecord, new_match, next_game
from gbot.records import matfile
from gbot.tournament.config import (
    RunSummary,
    TournamentConfig,
)
from gbot.tournament.game import GameResult, GameTask, close_players, run_task
from gbot.tournament.players import find_gnubg
from gbot.tournament.records import (
    Record,
    ResultStore,
    game_record,
    record_of,
    state_after,
)
from gbot.tournament.report import write_reports as write_report_files

__all__ = ["Progress", "preflight", "run",
           "write_match_files"]

# --------------------------------------------------------------------------- progress


@dataclass
class Progress:
    """Where a run stands, as :func:`run` reports it to its ``progress`` callback: units
    (money games or matches) done of the total, games recorded, games played in this run and
    their rate, and each pairing's running score."""

    units_done: int
    units_total: int
    games: int
    new_games: int
    elapsed: float
    pairings: list[tuple[str, str, int, float]]
    """``(A, B, games, A's points per game)``."""

    @property
    def rate(self) -> float:
        """Games per second in this run."""
        return self.new_games / self.elapsed if self.elapsed > 0 else 0.0


# --------------------------------------------------------------------------- the run


def preflight(config: TournamentConfig, backend: str = "process",
              connect_timeout: float = 5.0) -> None:
    """Check what would otherwise fail only once games run, before anything is written:
    the ``ray`` backend's package, each ``gbot,weights=FILE`` file, each gnubg binary, and
    that each external player accepts a connection. Raises
    :class:`~gbot.errors.TournamentError` or :class:`~gbot.errors.PlayerError`."""
    if backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise TournamentError("the ray backend needs Ray: pip install 'gbot[ray]' "
                                  "(or pip install ray)") from None
    for spec in config.specs():
        weights = spec.option("weights")
        if spec.kind == "gbot" and weights:
            try:
                Networks.load(weights)
            except GbotError as exc:
                raise PlayerError(
                    f"player {spec.text()!r}: gbot's networks ({weights}) cannot be loaded: "
                    f"{exc}; 'gbot,eval=heuristic' plays the built-in heuristic instead"
                ) from None
        elif spec.kind == "gnubg":
            if find_gnubg(spec.option("binary")) is None:
                raise PlayerError(f"player {spec.text()!r}: gnubg binary not found "
                                  f"({spec.option('binary') or 'gnubg, /usr/games/gnubg'})")
        elif spec.kind == "external":
            host, _, port = spec.address.rpartition(":")
            try:
                socket.create_connection((host, int(port)), timeout=connect_timeout).close()
            except OSError as exc:
                raise PlayerError(f"external player {spec.text()!r} cannot be reached at "
                                  f"{spec.address}: {exc.strerror or exc}") from None


def _open_folder(folder: Path, config: TournamentConfig) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "tournament.json"
    if path.exists():
        try:
            saved = TournamentConfig.from_json(json.loads(path.read_text()))
        except json.JSONDecodeError as exc:
            raise TournamentError(f"{path}: {exc}") from None
        if saved != config:
            raise TournamentError(
                f"{folder} holds another tournament ({path}); resume it with the same "
                f"settings or use another folder")
    else:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(config.to_json(), indent=2) + "\n")
        tmp.replace(path)


def _next_state(config: TournamentConfig, games: list[Record]) -> MatchState | None:
    """The state to play the next game of a unit from, or None when the unit is finished."""
    start = new_match(config.length, config.rules)
    if not games:
        return start
    last = max(games, key=lambda r: int(r["game"]))
    if config.length == 0 or last["match_over"]:
        return None
    if len(games) != int(last["game"]) + 1:
        raise TournamentError(f"unit {last['key']!r} has games missing before game "
                              f"{last['game']}")
    return next_game(state_after(last, config.length, config.rules))


def _by_key(records: list[Record]) -> dict[tuple[int, int, int], list[Record]]:
    out: dict[tuple[int, int, int], list[Record]] = {}
    for r in records:
        p, u, m = r["key"]
        out.setdefault((int(p), int(u), int(m)), []).append(r)
    return out


def run(config: TournamentConfig, folder: str | Path, *, backend: str = "process",
        workers: int | None = None, ray_address: str | None = None,
        progress: Callable[[Progress], None] | None = None, stop_after: int | None = None,
        write_reports: bool = True, check: bool = True) -> RunSummary:
    """Play ``config`` into ``folder`` (resuming what is there); returns a :class:`RunSummary`.

    ``check`` runs :func:`preflight` first (before the folder is created).
    ``stop_after`` stops cleanly after that many new games (as an interruption would).
    A player failure stops the run with :class:`~gbot.errors.PlayerError` after saving what
    finished; Ctrl-C (KeyboardInterrupt) does the same and is re-raised.
    """

    folder = Path(folder)
    if check:
        preflight(config, backend)
    _open_folder(folder, config)
    store = ResultStore(folder / "games.jsonl")
    labels = config.labels
    pairings = config.pairings()
    names = [(labels[a], labels[b]) for a, b in pairings]
    by_key = _by_key(store.records)
    pending: deque[GameTask] = deque()
    units_done = 0
    for key in config.keys():
        state = _next_state(config, by_key.get(key, []))
        if state is None:
            units_done += 1
        else:
            pending.append(config.task(key, state))
    tally = {p: [0, 0.0] for p in range(len(pairings))}
    for r in store.records:
        t = tally[int(r["key"][0])]
        t[0] += 1
        t[1] += r["a_points"]
    engines: dict[str, str] = {}
    for r in store.records:
        for label, what in zip(r["seats"], r.get("engines", []), strict=False):
            engines.setdefault(label, what)

    t0 = time.perf_counter()
    new = 0
    in_flight = 0
    stopped = False

    def report() -> None:
        if progress is not None:
            progress(Progress(units_done, config.total_units, len(store.records), new,
                              time.perf_counter() - t0,
                              [(a, b, int(tally[p][0]),
                                tally[p][1] / tally[p][0] if tally[p][0] else 0.0)
                               for p, (a, b) in enumerate(names)]))

    report()
    try:
        runner = (make_backend(backend, run_task, workers, ray_address, close_players)
                  if pending else None)
    except BackendError as exc:
        raise TournamentError(str(exc)) from None
    cancel = False
    try:
        while runner is not None and (pending or in_flight) and not stopped:
            while pending and in_flight < runner.capacity:
                runner.submit(pending.popleft())
                in_flight += 1
            for task, outcome in runner.results(timeout=0.5):
                in_flight -= 1
                if isinstance(outcome, BaseException):
                    cancel = True
                    if isinstance(outcome, GbotError):
                        raise outcome
                    raise PlayerError(f"game {task.number} of {task.labels[0]} against "
                                      f"{task.labels[1]} (unit {task.key[1]}) failed: "
                                      f"{type(outcome).__name__}: {outcome}") from outcome
                result: GameResult = outcome
                rec = record_of(result, names[task.key[0]])
                store.append(rec)
                new += 1
                t = tally[task.key[0]]
                t[0] += 1
                t[1] += rec["a_points"]
                for label, what in zip(task.labels, result.engines, strict=True):
                    engines.setdefault(label, what)
                if config.length and not result.end.match_over:
                    pending.appendleft(config.task(task.key, next_game(result.end)))
                else:
                    units_done += 1
                report()
                if stop_after is not None and new >= stop_after:
                    stopped = True
                    cancel = True
                    break
    except BaseException:
        cancel = True
        raise
    finally:
        if runner is not None:
            runner.close(cancel=cancel)
        summary = RunSummary(folder, config, list(store.records), new,
                             units_done == config.total_units, time.perf_counter() - t0,
                             engines)
        write_match_files(summary)
        if write_reports:
            write_report_files(summary)
    return summary


# --------------------------------------------------------------------------- .mat files


def _safe(label: str) -> str:
    return "".join(c if c.isalnum() or c in "_.+-" else "_" for c in label)


def write_match_files(summary: RunSummary) -> list[Path]:
    """Write every match (and each money pairing's two sessions) as ``.mat`` under ``mat/``.

    Money: one session per pairing and seating, ``mat/A_vs_B.mat`` (A in seat 0) and
    ``mat/B_vs_A.mat``, its games in unit order with running scores. Matches:
    ``mat/A_vs_B/u00001_X_vs_Y.mat`` with X in seat 0.
    """
    config = summary.config
    labels = config.labels
    root = summary.folder / "mat"
    written: list[Path] = []
    by_key = _by_key(summary.records)
    pairings = config.pairings()
    if config.length == 0:
        sessions: dict[tuple[int, int], list[Record]] = {}
        for (p, _u, m), recs in sorted(by_key.items()):
            sessions.setdefault((p, m), []).extend(recs)
        for (p, m), recs in sorted(sessions.items()):
            a, b = (labels[i] for i in pairings[p])
            seat0, seat1 = (a, b) if m == 0 else (b, a)
            games = []
            score = [0, 0]
            for i, r in enumerate(recs):
                g = replace(game_record(r), number=i, score=(score[0], score[1]))
                if g.winner >= 0:
                    score[g.winner] += g.points
                games.append(g)
            mr = MatchRecord(0, config.rules, (seat0, seat1), games, (score[0], score[1]))
            written.append(_write(root / f"{_safe(seat0)}_vs_{_safe(seat1)}.mat", mr))
        return written
    for (p, u, m), recs in sorted(by_key.items()):
        a, b = (labels[i] for i in pairings[p])
        seat0, seat1 = (a, b) if m == 0 else (b, a)
        recs = sorted(recs, key=lambda r: int(r["game"]))
        games = [game_record(r) for r in recs]
        final = tuple(int(x) for x in recs[-1]["score"])
        mr = MatchRecord(config.length, config.rules, (seat0, seat1), games,
                         (final[0], final[1]))
        path = root / f"{_safe(a)}_vs_{_safe(b)}" / f"u{u:05d}_{_safe(seat0)}_vs_{_safe(seat1)}.mat"
        written.append(_write(path, mr))
    return written


def _write(path: Path, record: MatchRecord) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    matfile.write(record, tmp)
    tmp.replace(path)
    return path
