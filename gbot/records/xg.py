"""eXtreme Gammon's binary files, read: ``.xg`` (a match or money session) and ``.xgp`` (one
position).

Both are a fixed 8,232-byte header (magic ``RGMH``), then a zlib archive found from the end
of the file whose member ``temp.xg`` holds fixed 2,560-byte records: the match header, then
per game a game header, cube and move records and a game footer, then a match footer. The
facts used are those of the public format description (``XGFile_format.txt``) as collected
in the project's ``shared/spec/xg-format.md``.

:func:`loads` turns the records into :class:`~gbot.game.referee.MatchRecord` entries and
replays them through the referee (:func:`gbot.records.matfile.replay`, as the ``.mat`` and
``.sgf`` readers do), so every move is checked. Read: names (the UTF-16 ones where the file
has them), match length (99999 = money), variation, Jacoby and beavers, each game's number
and score, moves, doubles, takes, drops, beavers and raccoons, and each game's winner and
points (a resignation or settlement is scored as recorded). Not read: analysis, rollouts,
comments, clocks, ratings, the thumbnail.

Player numbers: XG's player 1 (the bottom player) is gbot's player 1 and XG's player 2 is
gbot's player 0, as gnubg numbers them and as ``.mat`` files written from XG put them
(player 2 in the left column).

What the reader cannot follow is reported as a :class:`~gbot.records.matfile.MatchFileWarning`
whose ``line`` is the record's number in ``temp.xg`` (1-based): a move list that is no legal
play (the position the record gives after the move is taken where it is one; else the rest
of the game is skipped and its recorded result kept), a game from an edited or set-up
position, automatic doubles, checksums that do not match. A file that is no XG file, a
damaged container, numbers out of range and more than the given limits of games, entries or
records are refused with a one-line :class:`~gbot.errors.MatchFileError`; no length field is
trusted for an allocation, and the records are inflated a piece at a time, so a zlib bomb is
refused at the record limit.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gbot.core.board import flip_py
from gbot.core.limits import CENTRE, MAX_CUBE
from gbot.errors import BoardError, GbotError, IllegalMoveError, MatchFileError, MoveParseError
from gbot.game.fields import read_bounded
from gbot.game.match import MAX_MATCH_LENGTH, GameState, MatchState, Rules
from gbot.game.position import Position
from gbot.game.position_text import Situation
from gbot.game.referee import MatchRecord
from gbot.game.variations import start_board
from gbot.records import matfile
from gbot.records.matfile import Entry, FileWarnings, RawGame, replay

__all__ = ["MAX_RECORDS", "is_xg", "loads", "loads_position", "read", "read_position"]

MAGIC = b"RGMH"
HEADER_SIZE = 8232
TRAILER_SIZE = 36
ENTRY_SIZE = 532
RECORD_SIZE = 2560
RECORD_MAGIC = b"DMLI"
MONEY_LENGTH = 99999
"""The match length XG writes for a money session."""
MAX_MEMBERS = 64
"""Most archive members a file may list (XG writes four)."""
MAX_RECORDS = 250_000
"""Most records read from ``temp.xg`` when no limit is given: two per move (a cube record and
a move record), so about a thousand long games; 640 MB inflated, never held at once."""
_IN_CHUNK = 1 << 16
_OUT_CHUNK = RECORD_SIZE * 32
_VARIATIONS = {0: "standard", 1: "nackgammon", 2: "hyper3"}
_HEADER_MATCH, _HEADER_GAME, _CUBE, _MOVE, _FOOTER_GAME, _FOOTER_MATCH = range(6)


def is_xg(data: bytes) -> bool:
    """Whether ``data`` starts as an eXtreme Gammon file (``.xg`` or ``.xgp``)."""
    return data[:4] == MAGIC


# --------------------------------------------------------------------------- the container


@dataclass(frozen=True)
class _Member:
    """One file of the archive, as its registry entry states it."""

    name: str
    size: int
    start: int
    crc: int
    stored: bool


def _i32(buf: bytes, off: int) -> int:
    return int(struct.unpack_from("<i", buf, off)[0])


def _container(data: bytes, warn: FileWarnings) -> tuple[int, int, _Member]:
    """Where the archive's data starts and ends, and its ``temp.xg`` member."""
    if len(data) < HEADER_SIZE + TRAILER_SIZE:
        raise MatchFileError(f"{len(data):,} bytes is too short for an eXtreme Gammon file "
                             f"(its header alone is {HEADER_SIZE:,} bytes)")
    if not is_xg(data):
        raise MatchFileError(f"not an eXtreme Gammon file: it starts with {data[:4]!r}, "
                             f"not {MAGIC!r}")
    version, size = struct.unpack_from("<ii", data, 4)
    if version != 1 or size != HEADER_SIZE:
        raise MatchFileError(f"unknown eXtreme Gammon header: version {version}, size {size} "
                             f"(known: version 1, size {HEADER_SIZE})")
    end = len(data) - TRAILER_SIZE
    crc, count, _, reg_size, arch_size, packed = struct.unpack_from("<Iiiiii", data, end)
    if not 1 <= count <= MAX_MEMBERS:
        raise MatchFileError(f"the archive trailer lists {count} files; 1 to {MAX_MEMBERS} "
                             f"expected")
    reg_start = end - reg_size
    arch_start = reg_start - arch_size
    if reg_size < 0 or arch_size < 0 or arch_start < HEADER_SIZE:
        raise MatchFileError(f"the archive trailer points outside the file (registry "
                             f"{reg_size:,} bytes, data {arch_size:,} bytes, file "
                             f"{len(data):,} bytes)")
    view = memoryview(data)
    if zlib.crc32(view[arch_start:end]) != crc:
        warn(0, "the archive's CRC-32 does not match its contents; read on")
    registry = bytes(view[reg_start:end])
    if packed:
        registry = _inflate_exact(registry, count * ENTRY_SIZE, "the archive registry")
    if len(registry) != count * ENTRY_SIZE:
        raise MatchFileError(f"the archive registry is {len(registry):,} bytes, not the "
                             f"{count * ENTRY_SIZE:,} of {count} entries")
    members = [_member(registry, i * ENTRY_SIZE) for i in range(count)]
    game = next((m for m in members if m.name.lower() == "temp.xg"), None)
    if game is None:
        names = ", ".join(repr(m.name) for m in members)
        raise MatchFileError(f"no temp.xg (the game records) in the archive, only {names}")
    if not 0 <= game.start < arch_size:
        raise MatchFileError(f"temp.xg starts at {game.start:,}, outside the archive's "
                             f"{arch_size:,} bytes")
    return arch_start + game.start, reg_start, game


def _inflate_exact(blob: bytes, size: int, what: str) -> bytes:
    """The zlib stream ``blob`` inflated, which must give ``size`` bytes (no more is made)."""
    d = zlib.decompressobj()
    try:
        out = d.decompress(blob, size + 1)
    except zlib.error as exc:
        raise MatchFileError(f"{what} is no zlib data ({exc})") from None
    if len(out) != size or not d.eof:
        raise MatchFileError(f"{what} does not inflate to {size:,} bytes")
    return out


def _member(registry: bytes, off: int) -> _Member:
    n = registry[off]
    name = registry[off + 1:off + 1 + n].decode("latin-1")
    size, _, start, crc = struct.unpack_from("<iiiI", registry, off + 512)
    return _Member(name, size, start, crc, registry[off + 528] != 0)


def _chunks(data: bytes, lo: int, hi: int, member: _Member) -> Iterator[bytes]:
    """The bytes of ``member`` (its data in ``data[lo:hi]``), a piece at a time."""
    if member.stored:
        if not 0 <= member.size <= hi - lo:
            raise MatchFileError(f"temp.xg is stored as {member.size:,} bytes, but the archive "
                                 f"holds {hi - lo:,} bytes from its start")
        for pos in range(lo, lo + member.size, _OUT_CHUNK):
            yield data[pos:min(pos + _OUT_CHUNK, lo + member.size)]
        return
    d = zlib.decompressobj()
    pos = lo
    while not d.eof:
        if d.unconsumed_tail:
            src = d.unconsumed_tail
        else:
            src = data[pos:min(hi, pos + _IN_CHUNK)]
            pos += len(src)
        try:
            out = d.decompress(src, _OUT_CHUNK)
        except zlib.error as exc:
            raise MatchFileError(f"temp.xg: damaged zlib data ({exc})") from None
        if out:
            yield out
        elif not src:
            raise MatchFileError("temp.xg: the archive ends inside its zlib stream")


def _records(data: bytes, warn: FileWarnings, limit: int) -> Iterator[tuple[int, bytes]]:
    """``(number, record)`` of every 2,560-byte record of ``temp.xg`` (numbered from 1); more
    than ``limit`` records are refused."""
    lo, hi, member = _container(data, warn)
    buf = bytearray()
    count, total, crc = 0, 0, 0
    for chunk in _chunks(data, lo, hi, member):
        total += len(chunk)
        crc = zlib.crc32(chunk, crc)
        buf += chunk
        while len(buf) >= RECORD_SIZE:
            count += 1
            if count > limit:
                raise MatchFileError(f"temp.xg holds more than {limit:,} records, the limit "
                                     f"for one file")
            rec = bytes(buf[:RECORD_SIZE])
            del buf[:RECORD_SIZE]
            if count == 1 and rec[556:560] != RECORD_MAGIC:
                raise MatchFileError("temp.xg does not start with a match header (no 'DMLI' "
                                     "mark): not an eXtreme Gammon game file")
            yield count, rec
    if count == 0:
        raise MatchFileError("temp.xg holds no record")
    if buf:
        warn(count, f"temp.xg ends with {len(buf):,} bytes that make no whole record; skipped")
    if total != member.size or crc != member.crc:
        warn(0, f"temp.xg is {total:,} bytes with CRC-32 {crc:08x}; the archive says "
                f"{member.size:,} bytes, {member.crc:08x}; read on")


# --------------------------------------------------------------------------- the records


def _position(rec: bytes, off: int) -> np.ndarray:
    """The 26 signed bytes of a PositionEngine at ``off``."""
    return np.frombuffer(rec, dtype=np.int8, count=26, offset=off).copy()


def _ansi(rec: bytes, off: int, size: int) -> str:
    """A Delphi ``string[size]`` at ``off``."""
    n = min(rec[off], size)
    return rec[off + 1:off + 1 + n].decode("latin-1")


def _wide(rec: bytes, off: int, chars: int) -> str:
    """A NUL-terminated UTF-16 text of at most ``chars`` characters at ``off``."""
    return rec[off:off + 2 * chars].decode("utf-16-le", errors="replace").split("\0", 1)[0]


def _clean(name: str) -> str:
    """``name`` on one line: characters that do not print become spaces."""
    return "".join(c if c.isprintable() else " " for c in name).strip()


@dataclass(frozen=True)
class _MatchHeader:
    """What gbot reads of the match header: names (gbot's player 0, 1), length (0 = money),
    rules, whether the Crawford rule is on, and the file version."""

    names: tuple[str, str]
    length: int
    rules: Rules
    crawford: bool
    version: int


def _match_header(rec: bytes) -> _MatchHeader:
    version = _i32(rec, 552)
    names = []
    for ansi, wide, default in ((50, 1138, "player0"), (9, 880, "player1")):
        text = _clean(_wide(rec, wide, 128)) if version >= 24 else ""
        names.append(text or _clean(_ansi(rec, ansi, 40)) or default)
    length = _i32(rec, 92)
    if length in (MONEY_LENGTH, 0):
        length = 0
    elif not 1 <= length <= MAX_MATCH_LENGTH:
        raise MatchFileError(f"match length {length} is outside 1 to {MAX_MATCH_LENGTH}, the "
                             f"lengths gnubg plays (99999: money)")
    code = _i32(rec, 96)
    if code not in _VARIATIONS:
        what = "Longgammon" if code == 3 else f"variation {code}"
        raise MatchFileError(f"{what} is no variation gbot plays (it plays backgammon, "
                             f"Nackgammon and Hypergammon)")
    beavers = rec[102] != 0
    rules = Rules(jacoby=rec[101] != 0, beavers=beavers, raccoons=beavers,
                  variation=_VARIATIONS[code])
    return _MatchHeader((names[0], names[1]), length, rules, rec[100] != 0, version)


def _player(rec: bytes, off: int, number: int) -> int:
    """gbot's player of XG's side code at ``off`` (+1 player 1, -1 player 2)."""
    side = _i32(rec, off)
    if side not in (1, -1):
        raise MatchFileError(f"record {number}: the player is {side}, not 1 or -1")
    return 1 if side == 1 else 0


def _count(rec: bytes, off: int, what: str, number: int, hi: int = matfile.MAX_POINTS) -> int:
    value = _i32(rec, off)
    if not 0 <= value <= hi:
        raise MatchFileError(f"record {number}: {what} {value} is outside 0 to {hi:,}")
    return value


def _step_text(src: int, dst: int) -> str:
    return f"{'bar' if src == 24 else src + 1}/{'off' if dst < 0 else dst + 1}"


def _move_steps(rec: bytes, number: int) -> list[str]:
    """The ``from/to`` steps of a move record's move list (mover's numbering)."""
    pairs = struct.unpack_from("<8i", rec, 68)
    if not any(pairs):
        return []                               # all zero: no legal move
    steps = []
    for k in range(0, 8, 2):
        src, dst = pairs[k], pairs[k + 1]
        if src == -1:
            break
        if not (0 <= src <= 24 and -6 <= dst <= 23):
            raise MatchFileError(f"record {number}: move from {src} to {dst} is no step "
                                 f"(points 0-23, bar 24, off below 0)")
        steps.append(_step_text(src, dst))
    return steps


def _dice(rec: bytes, off: int, number: int) -> tuple[int, int]:
    d1, d2 = struct.unpack_from("<2i", rec, off)
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise MatchFileError(f"record {number}: dice {d1}-{d2} are not two dice 1-6")
    return int(d1), int(d2)


def _views(board: np.ndarray) -> tuple[tuple[int, ...], ...]:
    """``board`` as stored and mirrored: the public readers disagree on whether XG stores a
    position from the mover's side or from player 1's."""
    a = tuple(int(x) for x in board)
    b = tuple(int(x) for x in flip_py(board))
    return (a,) if a == b else (a, b)


@dataclass
class _Game:
    """The game being read: its raw entries and what the reader keeps track of."""

    raw: RawGame
    cube: int = 1
    moves: int = 0
    cube_warned: bool = False
    lost: bool = False


@dataclass
class _Reader:
    """Turns records into the raw games :func:`gbot.records.matfile.replay` replays."""

    header: _MatchHeader
    warn: FileWarnings
    max_games: int | None
    max_entries: int | None
    games: list[RawGame] = field(default_factory=list)
    game: _Game | None = None
    entries: int = 0
    final: tuple[int, int] | None = None
    skipped: dict[int, int] = field(default_factory=dict)

    def record(self, number: int, rec: bytes) -> None:
        """Read one record."""
        kind = rec[8]
        if kind == _HEADER_GAME:
            self._header_game(number, rec)
        elif kind in (_CUBE, _MOVE, _FOOTER_GAME):
            if self.game is None:
                self.warn(number, f"record {number}: a {_KIND_NAMES[kind]} record outside a "
                                  f"game; skipped")
                return
            if kind == _CUBE:
                self._cube(number, rec, self.game)
            elif kind == _MOVE:
                self._move(number, rec, self.game)
            else:
                self._footer_game(number, rec, self.game)
        elif kind == _FOOTER_MATCH:
            self.final = (_count(rec, 16, "score", number), _count(rec, 12, "score", number))
        else:
            self.skipped[kind] = self.skipped.get(kind, 0) + 1

    def _add(self, game: _Game, e: Entry) -> None:
        if e.kind != "wins":
            self.entries += 1
            if self.max_entries is not None and self.entries > self.max_entries:
                raise MatchFileError(f"record {e.line}: more than {self.max_entries:,} moves "
                                     f"and cube actions in the file, the limit for one file")
        game.raw.entries.append(e)

    def _setup(self, game: _Game, number: int, why: str) -> None:
        """The game's play cannot be followed from ``number`` on: say why, once."""
        if not game.lost:
            game.lost = True
            game.raw.entries.append(Entry(0, "setup", line=number, where=f"record {number}",
                                          text=why))

    def _header_game(self, number: int, rec: bytes) -> None:
        if self.max_games is not None and len(self.games) >= self.max_games:
            raise MatchFileError(f"record {number}: more than {self.max_games:,} games in the "
                                 f"file, the limit for one file")
        score = (_count(rec, 16, "score", number), _count(rec, 12, "score", number))
        raw = RawGame(_count(rec, 48, "game number", number), number, self.header.names, score)
        self.games.append(raw)
        self.game = _Game(raw)
        autos = _i32(rec, 64) if self.header.version >= 26 else 0
        if autos:
            self._setup(self.game, number, f"the game starts with {autos} automatic "
                                           f"double(s), which gbot does not play")
        start = start_board(self.header.rules.variation)
        if not np.array_equal(_position(rec, 21), start):
            self._setup(self.game, number, "the game starts from a set-up position; gbot's "
                                           "records start every game from the opening one")

    def _edited(self, rec: bytes, off: int) -> bool:
        return self.header.version >= 24 and rec[off] != 0

    def _cube(self, number: int, rec: bytes, game: _Game) -> None:
        if self._edited(rec, 296):
            self._setup(game, number, "the position was edited in XG here")
        if _i32(rec, 16) != 1:
            return                                  # no double (0), no cube decision (-2)
        p = _player(rec, 12, number)
        log = _i32(rec, 32)
        if not game.cube_warned and abs(log) <= 15 and 2 ** abs(log) != game.cube:
            game.cube_warned = True
            self.warn(number, f"game {game.raw.number}, record {number}: the record gives the "
                              f"cube at {2 ** abs(log)}, the play before at {game.cube}; the "
                              f"play's is kept")
        c = game.cube
        where = f"cube action (record {number})"

        def add(player: int, kind: str, value: int = 0) -> None:
            self._add(game, Entry(player, kind, value, line=number, where=where,
                                  text=f"{kind} {value}" if value else kind))

        add(p, "double", 2 * c)
        answers = {0: [(1 - p, "drop", 0)], 1: [(1 - p, "take", 0)]}
        chain = [(1 - p, "beaver", 4 * c)]
        beaver = _i32(rec, 24)
        if beaver == 0:
            chain.append((p, "drop", 0))
        elif beaver == 1:
            chain.append((p, "take", 0))
        elif beaver == 2:
            chain.append((p, "beaver", 8 * c))
            chain.append((1 - p, "take" if _i32(rec, 28) == 1 else "drop", 0))
        answers[2] = chain
        take = _i32(rec, 20)
        if take not in answers or (take == 2 and beaver not in (0, 1, 2)):
            raise MatchFileError(f"record {number}: cube answer {take} (beaver {beaver}) is "
                                 f"none of drop 0, take 1, beaver 2 (beaver answers 0-2)")
        for player, kind, value in answers[take]:
            add(player, kind, value)
        game.cube = {0: c, 1: 2 * c}.get(take, c * (8 if beaver == 2 else 4))

    def _move(self, number: int, rec: bytes, game: _Game) -> None:
        if self._edited(rec, 2528):
            self._setup(game, number, "the position was edited in XG here")
        game.moves += 1
        p = _player(rec, 64, number)
        dice = _dice(rec, 100, number)
        steps = _move_steps(rec, number)
        text = f"{max(dice)}{min(dice)}: {' '.join(steps) if steps else '(no move)'}"
        self._add(game, Entry(p, "move", dice=dice, steps=steps, line=number,
                              where=f"move {game.moves} (record {number})", text=text,
                              after=_views(_position(rec, 35))))

    def _footer_game(self, number: int, rec: bytes, game: _Game) -> None:
        points = _count(rec, 28, "points won", number, 3 * MAX_CUBE)
        if points:
            how = _i32(rec, 32)
            said = ("by settlement" if how >= 1000 else "by resignation" if how >= 100
                    else "")
            e = Entry(_player(rec, 24, number), "wins", points, line=number,
                      where=f"result (record {number})",
                      text=f"wins {points} point(s) {said}".strip())
            game.raw.entries.append(e)
        self.game = None


_KIND_NAMES = {_CUBE: "cube", _MOVE: "move", _FOOTER_GAME: "game footer"}


def _reader(data: bytes, warn: FileWarnings, limit: int) -> Iterator[tuple[int, bytes]]:
    """The records of ``data`` after checking that the first is a match header."""
    records = _records(data, warn, limit)
    first = next(records)
    if first[1][8] != _HEADER_MATCH:
        raise MatchFileError(f"temp.xg starts with a record of type {first[1][8]}, not the "
                             f"match header")
    yield first
    yield from records


def _record_limit(max_games: int | None, max_entries: int | None) -> int:
    if max_games is None or max_entries is None:
        return MAX_RECORDS
    return min(MAX_RECORDS, 2 * max_entries + 3 * max_games + 2)


def loads(data: bytes, *, max_games: int | None = None, max_entries: int | None = None,
          source: str | None = None) -> MatchRecord:
    """The match of the ``.xg`` file ``data``, every move checked by the referee.

    Raises :class:`MatchFileError` on bytes that are no XG file or a damaged one, numbers out
    of range, a match longer than :data:`gbot.game.match.MAX_MATCH_LENGTH`, a variation gbot
    does not play, play it cannot replay at all, and (when given) more than ``max_games``
    games or ``max_entries`` moves and cube actions, or more records than those make (at most
    :data:`MAX_RECORDS`), each as it is met. What is read otherwise than written is reported as
    a :class:`~gbot.records.matfile.MatchFileWarning` naming the record; ``source`` names the
    file in them."""
    if len(data) > matfile.MAX_BYTES:
        raise MatchFileError(f"the XG data is {len(data):,} bytes, more than the "
                             f"{matfile.MAX_BYTES:,} a match file may have")
    warn = FileWarnings(source)
    records = _reader(data, warn, _record_limit(max_games, max_entries))
    header = _match_header(next(records)[1])
    reader = _Reader(header, warn, max_games, max_entries)
    for number, rec in records:
        reader.record(number, rec)
    if header.length and not header.crawford:
        warn(1, "the match was played without the Crawford rule; gbot replays it with it")
    for kind, n in sorted(reader.skipped.items()):
        warn(0, f"skipped {n} record(s) of type {kind} (no play gbot reads)")
    if not reader.games:
        raise MatchFileError("the XG file holds no game")
    record = replay(header.length, header.rules, header.names, reader.games, warn)
    if reader.final is not None and reader.final != record.final_score:
        warn(0, f"the match footer gives the final score {reader.final[0]}-{reader.final[1]}, "
                f"the games {record.final_score[0]}-{record.final_score[1]}")
    warn.close()
    return record


def read(path: str | Path, *, max_games: int | None = None,
         max_entries: int | None = None) -> MatchRecord:
    """:func:`loads` of the file at ``path`` (its warnings name ``path``); a file over
    :data:`gbot.records.matfile.MAX_BYTES` bytes is refused without reading more than that."""
    data = read_bounded(path, matfile.MAX_BYTES, "match file", MatchFileError)
    return loads(data, max_games=max_games, max_entries=max_entries, source=str(path))


# --------------------------------------------------------------------------- positions


def loads_position(data: bytes, source: str | None = None) -> Situation:
    """The position of the ``.xgp`` file ``data``, with its score, cube and rules.

    A file saved from a checker play (it holds a move record) gives the position before that
    play and its dice; otherwise the position of its cube record, before the roll. The board is
    read with the mover's checkers as the positive ones, numbered from the mover's home (the
    layout of the format description's sample record), unless the move record's own move
    only fits the mirrored board. The cube's owner is read from the sign of its log2 value in
    XG's player code (+ player 1). Raises :class:`MatchFileError` as :func:`loads` does, and
    for a file with no cube or move record or an impossible position."""
    if len(data) > matfile.MAX_BYTES:
        raise MatchFileError(f"the XG data is {len(data):,} bytes, more than the "
                             f"{matfile.MAX_BYTES:,} a position file may have")
    warn = FileWarnings(source)
    records = _reader(data, warn, 64)
    header = _match_header(next(records)[1])
    game: bytes | None = None
    last: tuple[int, bytes] | None = None
    for number, rec in records:
        if rec[8] == _HEADER_GAME and game is None:
            game = rec
        elif rec[8] in (_CUBE, _MOVE) and game is not None:
            if last is None or last[1][8] != _MOVE:
                last = (number, rec)
    if game is None or last is None:
        raise MatchFileError("the XG file holds no position (no game header followed by a "
                             "cube or move record)")
    warn.close()
    return _situation(header, game, *last)


def _situation(header: _MatchHeader, game: bytes, number: int, rec: bytes) -> Situation:
    """The :class:`Situation` of a cube or move record ``rec`` in the game of ``game``."""
    move = rec[8] == _MOVE
    player = _player(rec, 64 if move else 12, number)
    board = _position(rec, 9 if move else 36)
    dice = _dice(rec, 100, number) if move else None
    if move and dice is not None:
        board = _oriented(board, _position(rec, 35), dice, _move_steps(rec, number),
                          header.rules)
    score = (_count(game, 16, "score", 1), _count(game, 12, "score", 1))
    length = header.length
    if length and max(score) >= length:
        raise MatchFileError(f"score {score[0]}-{score[1]} is past the end of a "
                             f"{length}-point match")
    log = _i32(rec, 108 if move else 32)
    if abs(log) > 15:
        raise MatchFileError(f"record {number}: cube 2^{abs(log)} is above {MAX_CUBE}")
    owner = CENTRE if log == 0 else (1 if log > 0 else 0)
    try:
        pos = Position(board, max_checkers=header.rules.checkers)
    except BoardError as exc:
        raise MatchFileError(f"record {number}: {exc}") from None
    crawford = game[20] != 0
    at_point = length > 0 and length - 1 in score
    state = MatchState(match_length=length, score=score, cube_value=2 ** abs(log),
                       cube_owner=owner, player_on_roll=player, player_to_act=player,
                       dice=dice or (0, 0), crawford=crawford, game_state=GameState.PLAYING,
                       rules=header.rules.in_force(length), board=tuple(int(x) for x in board),
                       crawford_done=crawford or at_point)
    return Situation(pos, state, dice)


def _oriented(before: np.ndarray, after: np.ndarray, dice: tuple[int, int], steps: list[str],
              rules: Rules) -> np.ndarray:
    """``before`` or its mirror: the one the recorded move turns into ``after`` (or its
    mirror); ``before`` as stored when neither or both do."""
    fits = []
    for b, a in ((before, after), (flip_py(before), flip_py(after))):
        try:
            play = Position(b, max_checkers=rules.checkers).play_from_text(
                " ".join(steps), dice, caucasian=rules.caucasian)
        except (GbotError, IllegalMoveError, MoveParseError):
            continue
        if np.array_equal(play.position.board, a):
            fits.append(b)
    return fits[0] if len(fits) == 1 else before


def read_position(path: str | Path) -> Situation:
    """:func:`loads_position` of the ``.xgp`` file at ``path``."""
    data = read_bounded(path, matfile.MAX_BYTES, "position file", MatchFileError)
    return loads_position(data, source=str(path))
