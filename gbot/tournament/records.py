"""The results file of a tournament: one JSON record per finished game, appended as it comes.

``games.jsonl`` is the single source of truth: the statistics, the reports and the ``.mat``
files are all made from it, and a resumed tournament reads it to know which games exist. A
record holds who sat where, the result, the match state after the game (enough to continue an
interrupted match) and the game's full log (enough to write its ``.mat`` file again).

A record is only written once its game is over, and a line cut short by an interruption is
dropped when the file is read back, so a game is either recorded whole or replayed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from gbot.errors import TournamentError
from gbot.game.match import GameState, MatchState, Rules
from gbot.game.notations import position_id
from gbot.game.referee import Action, GameRecord, match_winner, new_match
from gbot.tournament.game import GameResult

__all__ = ["RECORD_VERSION", "ResultStore", "game_record", "record_of", "state_after"]

RECORD_VERSION = 1
Record = dict[str, Any]

_STATE_FIELDS = ("game_number", "crawford", "crawford_done", "winner", "game_opener",
                 "game_points")


def _action(a: Action) -> list[Any]:
    board = position_id.encode(np.array(a.board, dtype=np.int8)) if a.board else ""
    return [a.kind, a.player, f"{a.dice[0]}{a.dice[1]}" if a.dice != (0, 0) else "",
            [x for step in a.steps for x in step], board, a.value]


def _unaction(row: list[Any]) -> Action:
    kind, player, dice, flat, board, value = row
    steps = tuple((int(flat[i]), int(flat[i + 1])) for i in range(0, len(flat), 2))
    d = (int(dice[0]), int(dice[1])) if dice else (0, 0)
    b = tuple(int(x) for x in position_id.decode(board)) if board else ()
    return Action(str(kind), int(player), d, steps, b, int(value))


def record_of(result: GameResult, pairing: tuple[str, str]) -> Record:
    """The JSON record of ``result``; ``pairing`` are the labels of the pairing's players A, B
    (``a_points`` is A's net score of the game)."""
    task, end, rec = result.task, result.end, result.record
    winner = end.winner
    a_seat = 0 if task.labels[0] == pairing[0] else 1
    a_points = 0 if winner < 0 else (end.game_points if winner == a_seat else -end.game_points)
    rolls = [f"{a.dice[0]}{a.dice[1]}" for a in rec.actions if a.kind == "roll"]

    return {
        "v": RECORD_VERSION,
        "key": list(task.key),
        "game": task.number,
        "pairing": list(pairing),
        "seats": list(task.labels),
        "winner": winner,
        "points": end.game_points,
        "a_points": a_points,
        "how": end.game_state.name,
        "kind": result.kind,
        "cube": end.cube_value,
        "turns": end.turn,
        "start_score": list(task.start.score),
        "score": list(end.score),
        "match_over": end.match_over,
        "match_winner": match_winner(end),
        "state": {f: getattr(end, f) for f in _STATE_FIELDS},
        "dice_seed": task.dice_seed,
        "rolls": " ".join(rolls),
        "actions": [_action(a) for a in rec.actions],
        "engines": list(result.engines),
        "seconds": round(result.seconds, 4),
    }


def game_record(record: Record) -> GameRecord:
    """The referee's :class:`GameRecord` of a JSON record (for ``.mat`` files)."""
    how = GameState[record["how"]]
    return GameRecord(int(record["game"]), (int(record["start_score"][0]),
                                             int(record["start_score"][1])),
                      bool(record["state"]["crawford"]),
                      [_unaction(r) for r in record["actions"]],
                      int(record["winner"]), int(record["points"]), how)


def state_after(record: Record, length: int, rules: Rules) -> MatchState:
    """The match state right after the recorded game (for continuing its match)."""
    st = record["state"]
    base = new_match(length, rules)
    fields = {f: st[f] for f in _STATE_FIELDS}
    return replace(base, score=(int(record["score"][0]), int(record["score"][1])),
                   game_state=GameState[record["how"]], **fields)


class ResultStore:
    """``games.jsonl`` in a tournament folder: read what is there, append new records."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.records: list[Record] = []
        self._keys: set[tuple[int, int, int, int]] = set()
        if self.path.exists():
            self._load()

    @staticmethod
    def key_of(record: Record) -> tuple[int, int, int, int]:
        """``(pairing, unit, mirror, game)`` of a record."""
        p, u, m = record["key"]
        return int(p), int(u), int(m), int(record["game"])

    def _load(self) -> None:
        data = self.path.read_bytes()
        good = 0
        pos = 0
        for line in data.split(b"\n")[:-1]:   # the part after the last newline is unfinished
            pos += len(line) + 1
            if not line.strip():
                good = pos
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                at = pos - len(line) - 1
                raise TournamentError(f"{self.path}: unreadable record at byte {at}: "
                                      f"{line[:80]!r} ({exc})") from None
            if rec.get("v") != RECORD_VERSION:
                raise TournamentError(f"{self.path}: record version {rec.get('v')!r}, "
                                      f"expected {RECORD_VERSION}")
            k = self.key_of(rec)
            if k not in self._keys:   # a duplicate can only be a copy; keep the first
                self._keys.add(k)
                self.records.append(rec)
            good = pos
        if good < len(data):          # drop a line cut short by an interruption
            with self.path.open("r+b") as fh:
                fh.truncate(good)

    def __contains__(self, key: tuple[int, int, int, int]) -> bool:
        return key in self._keys

    def append(self, record: Record) -> None:
        """Write ``record`` as one line and flush it to the operating system."""
        k = self.key_of(record)
        if k in self._keys:
            raise TournamentError(f"game {k!r} is already recorded in {self.path}")
        line = json.dumps(record, separators=(",", ":")) + "\n"
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
        self._keys.add(k)
        self.records.append(record)

    def extend(self, records: Iterable[Record]) -> None:
        """Append several records."""
        for r in records:
            self.append(r)
