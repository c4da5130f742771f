"""A test-only writer of eXtreme Gammon ``.xg`` / ``.xgp`` bytes, built from the layout in
``shared/spec/xg-format.md`` (header, 2,560-byte records, zlib members, registry, trailer).

:class:`Match` assembles records from a script of games: moves as single-die step text in the
mover's numbering (``8/5 6/5``, ``bar/22``, ``6/off``), cube actions and results. Boards are
followed with gbot's own move generator only to fill in the positions the records carry.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

import numpy as np

from gbot.core.board import flip_py
from gbot.game.position import Position
from gbot.game.variations import start_board

RECORD = 2560


def _put(rec: bytearray, off: int, fmt: str, *values: object) -> None:
    struct.pack_into("<" + fmt, rec, off, *values)


def _ansi(rec: bytearray, off: int, text: str, size: int) -> None:
    raw = text.encode("latin-1")[:size]
    rec[off] = len(raw)
    rec[off + 1:off + 1 + len(raw)] = raw


def _wide(rec: bytearray, off: int, raw: bytes) -> None:
    rec[off:off + len(raw)] = raw


def _board(rec: bytearray, off: int, board: np.ndarray) -> None:
    rec[off:off + 26] = np.asarray(board, dtype=np.int8).tobytes()


def match_header(p1: str = "Alice", p2: str = "Bob", length: int = 5, *,
                 variation: int = 0, crawford: bool = True, jacoby: bool = False,
                 beaver: bool = False, version: int = 30, wide1: bytes | None = None,
                 wide2: bytes | None = None) -> bytes:
    """A HeaderMatch record (type 0); ``wide1``/``wide2`` replace the UTF-16 names' bytes."""
    rec = bytearray(RECORD)
    rec[8] = 0
    _ansi(rec, 9, p1, 40)
    _ansi(rec, 50, p2, 40)
    _put(rec, 92, "ii", length, variation)
    rec[100:104] = bytes([crawford, jacoby, beaver, 0])
    _put(rec, 552, "i", version)
    rec[556:560] = b"DMLI"
    if version >= 24:
        _wide(rec, 880, wide1 if wide1 is not None else p1.encode("utf-16-le") + b"\0\0")
        _wide(rec, 1138, wide2 if wide2 is not None else p2.encode("utf-16-le") + b"\0\0")
    return bytes(rec)


def header_game(score1: int, score2: int, number: int, *, crawford: bool = False,
                board: np.ndarray | None = None, autodoubles: int = 0) -> bytes:
    rec = bytearray(RECORD)
    rec[8] = 1
    _put(rec, 12, "ii", score1, score2)
    rec[20] = crawford
    _board(rec, 21, start_board() if board is None else board)
    _put(rec, 48, "i", number)
    _put(rec, 64, "i", autodoubles)
    return bytes(rec)


def cube(active: int, double: int = 0, take: int = -1, beaver: int = 0, raccoon: int = 0,
         cube_log: int = 0, board: np.ndarray | None = None, *, edited: bool = False) -> bytes:
    rec = bytearray(RECORD)
    rec[8] = 2
    _put(rec, 12, "iiiiii", active, double, take, beaver, raccoon, cube_log)
    _board(rec, 36, start_board() if board is None else board)
    rec[296] = edited
    return bytes(rec)


def move(active: int, dice: tuple[int, int], pairs: list[int], before: np.ndarray,
         after: np.ndarray, cube_log: int = 0) -> bytes:
    rec = bytearray(RECORD)
    rec[8] = 3
    _board(rec, 9, before)
    _board(rec, 35, after)
    full = (pairs + [-1] * 8)[:8]
    _put(rec, 64, "i8i2ii", active, *full, *dice, cube_log)
    rec[2308] = 1
    return bytes(rec)


def footer_game(score1: int, score2: int, winner: int, points: int, how: int = 1) -> bytes:
    rec = bytearray(RECORD)
    rec[8] = 4
    _put(rec, 12, "ii", score1, score2)
    _put(rec, 24, "iii", winner, points, how)
    return bytes(rec)


def footer_match(score1: int, score2: int, winner: int) -> bytes:
    rec = bytearray(RECORD)
    rec[8] = 5
    _put(rec, 12, "iii", score1, score2, winner)
    return bytes(rec)


def pairs_of(text: str) -> list[int]:
    """The 0-based (from, to) list of step text in the mover's numbering."""
    out: list[int] = []
    for step in text.split():
        a, b = step.split("/")
        out.append(24 if a == "bar" else int(a) - 1)
        out.append(-1 if b == "off" else int(b) - 1)
    return out


@dataclass
class Match:
    """Records of a match, built game by game. ``mirror_p2``: store positions of player 2's
    turns from player 1's side (the other reading of the format)."""

    length: int = 5
    p1: str = "Alice"
    p2: str = "Bob"
    mirror_p2: bool = False
    header_kw: dict[str, object] = field(default_factory=dict)
    records: list[bytes] = field(default_factory=list)
    board: np.ndarray = field(default_factory=start_board)
    mover: int = 0
    cube_log: int = 0

    def __post_init__(self) -> None:
        self.records.append(match_header(self.p1, self.p2, self.length, **self.header_kw))

    def _stored(self, board: np.ndarray, active: int) -> np.ndarray:
        return flip_py(board) if self.mirror_p2 and active == -1 else board

    def game(self, score1: int, score2: int, number: int, **kw: object) -> Match:
        self.records.append(header_game(score1, score2, number, **kw))  # type: ignore[arg-type]
        self.board = start_board()
        self.mover = 0
        self.cube_log = 0
        return self

    def play(self, active: int, dice: tuple[int, int], text: str,
             pairs: list[int] | None = None) -> Match:
        """A cube record with no decision, then ``active``'s move ``text``."""
        if self.mover != active:
            self.board = flip_py(self.board)
            self.mover = active
        before = self.board.copy()
        after = (Position(before).play_from_text(text, dice).position.board.copy() if text
                 else before.copy())
        self.records.append(cube(active, -2 if self.records[-1][8] == 1 else 0,
                                 cube_log=self.cube_log, board=self._stored(before, active)))
        self.records.append(move(active, dice, pairs_of(text) if pairs is None else pairs,
                                 self._stored(before, active), self._stored(after, active),
                                 self.cube_log))
        self.board = after
        return self

    def double(self, active: int, take: int, beaver: int = 0, raccoon: int = 0) -> Match:
        if self.mover != active:
            self.board = flip_py(self.board)
            self.mover = active
        self.records.append(cube(active, 1, take, beaver, raccoon, self.cube_log,
                                 self._stored(self.board, active)))
        self.cube_log = abs(self.cube_log) + {0: 0, 1: 1, 2: {0: 1, 1: 2, 2: 3}[beaver]}[take]
        return self

    def end(self, score1: int, score2: int, winner: int, points: int, how: int = 1) -> Match:
        self.records.append(footer_game(score1, score2, winner, points, how))
        return self

    def finish(self, score1: int, score2: int, winner: int) -> Match:
        self.records.append(footer_match(score1, score2, winner))
        return self

    def temp_xg(self) -> bytes:
        return b"".join(self.records)

    def file(self, **kw: object) -> bytes:
        return container(self.temp_xg(), **kw)  # type: ignore[arg-type]


def _entry(name: str, size: int, csize: int, start: int, crc: int, stored: bool) -> bytes:
    e = bytearray(532)
    raw = name.encode("latin-1")
    e[0] = len(raw)
    e[1:1 + len(raw)] = raw
    _put(e, 512, "iiiI", size, csize, start, crc)
    e[528] = 1 if stored else 0
    e[529] = 6
    return bytes(e)


def container(temp_xg: bytes, *, extra: dict[str, bytes] | None = None,
              registry_compressed: bool = True, stored: bool = False,
              thumbnail: bytes = b"") -> bytes:
    """The whole file: header (with ``thumbnail`` after it), the members (``temp.xg`` first,
    then ``extra``) zlib-compressed unless ``stored``, the registry and the trailer."""
    head = bytearray(8232)
    head[0:4] = b"RGMH"
    _put(head, 4, "iiqI", 1, 8232, 0, len(thumbnail))
    name = "eXtreme Gammon 2.19.1".encode("utf-16-le")
    head[40:40 + len(name)] = name
    members = {"temp.xg": temp_xg, **(extra or {})}
    data = bytearray()
    registry = bytearray()
    for member, raw in members.items():
        body = raw if stored else zlib.compress(raw, 6)
        registry += _entry(member, len(raw), len(body), len(data), zlib.crc32(raw), stored)
        data += body
    reg = zlib.compress(bytes(registry)) if registry_compressed else bytes(registry)
    archive = bytes(data) + reg
    trailer = struct.pack("<Iiiiii12x", zlib.crc32(archive), len(members), 1, len(reg),
                          len(data), 1 if registry_compressed else 0)
    return bytes(head) + thumbnail + archive + trailer
