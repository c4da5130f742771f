"""bgsage (PyPI ``bgsage``, MPL-2.0) as a training-time teacher and a benchmark opponent.

Never imported by gbot at run time: only the training stages and ``scripts/`` use it.

Depths are bgsage's own naming: ``1`` is its raw network, ``2`` one ply of look-ahead over the
21 rolls (gnubg's 1-ply), ``3`` two (gnubg's 2-ply). Probabilities are gnubg's cumulative
``(win, win_g, win_bg, lose_g, lose_bg)`` of the side to move.

What the bridge takes care of:

* Layout. bgsage's board is gbot's (``b[1..24]`` from the mover's side, ``b[25]`` the mover's
  bar) except that the opponent's bar ``b[0]`` is a positive count there.
* Side. bgsage scores a board *after* its mover's move, for that mover. A position with a side
  to move is therefore flipped, scored for the side that just moved, and inverted.
* Pre-move board. Its networks are chosen with the help of the board before the move; a
  position scored on its own is passed as its own pre-move board (as bgsage's search does for
  every node), since any other board shifts the raw values.
* Cost. The strategies are built once (the weight files load in ~0.2 s) and wrapped with the
  bear-off database; batches go to bgsage's compiled batch function.
* Exact facts. Finished games (one side has no checker left) get their exact result, from
  gbot's board, not from a network; a side that has borne a checker off cannot be gammoned;
  without contact, a backgammon needs a loser's checker in the winner's home board (bgsage's
  raw net gives 0.5-0.7 backgammons to some won races without one).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from gbot.core.board import Board
from gbot.core.classify import BEAROFF, RACE, classify_many

PLIES = (1, 2, 3)
FILTER_MAX_MOVES = 5
FILTER_THRESHOLD = 0.08
_EQ = np.array([2.0, 1.0, 1.0, -1.0, -1.0])


def _cpp() -> Any:
    """The compiled ``bgbot_cpp`` module of the ``bgsage`` wheel (an optional dependency)."""
    try:
        import bgbot_cpp
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("bgsage is not installed (pip install 'gbot[oracle]')") from exc
    return bgbot_cpp


def to_bgsage(boards: npt.NDArray[np.integer]) -> npt.NDArray[np.int32]:
    """bgsage boards (``int32[n, 26]``) of gbot boards (``int8[n, 26]`` or one ``[26]``)."""
    b = np.array(boards, dtype=np.int32).reshape(-1, 26)
    b[:, 0] = -b[:, 0]
    return b


def from_bgsage(boards: npt.NDArray[np.integer] | list[list[int]]) -> npt.NDArray[np.int8]:
    """gbot boards (``int8[n, 26]``) of bgsage boards."""
    b = np.array(boards, dtype=np.int8).reshape(-1, 26)
    b[:, 0] = -b[:, 0]
    return b


def invert(p: npt.NDArray[np.floating]) -> npt.NDArray[np.float32]:
    """The same probabilities seen by the other side (rows of five)."""
    p = np.asarray(p, dtype=np.float32).reshape(-1, 5)
    return np.stack([1.0 - p[:, 0], p[:, 3], p[:, 4], p[:, 1], p[:, 2]], axis=1)


def finished(boards: npt.NDArray[np.int8]) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float32]]:
    """Which boards are finished games and, for those, the exact result of the side the board
    is seen by.

    A side that is gammoned has borne off nothing; backgammoned, it also still has a checker
    on the bar or in the winner's home board.
    """
    b = np.asarray(boards, dtype=np.int64).reshape(-1, 26)
    mine = np.clip(b[:, 1:26], 0, None).sum(axis=1)
    theirs = np.clip(-b[:, 1:25], 0, None).sum(axis=1) - b[:, 0]
    probs = np.zeros((b.shape[0], 5), dtype=np.float32)
    # I have borne everything off: I won.
    won = mine == 0
    gam_w = won & (theirs == 15)
    bg_w = gam_w & ((b[:, 0] < 0) | (b[:, 1:7] < 0).any(axis=1))
    probs[won, 0] = 1.0
    probs[gam_w, 1] = 1.0
    probs[bg_w, 2] = 1.0
    # The opponent has borne everything off: I lost.
    lost = (theirs == 0) & ~won
    gam_l = lost & (mine == 15)
    bg_l = gam_l & ((b[:, 25] > 0) | (b[:, 19:25] > 0).any(axis=1))
    probs[gam_l, 3] = 1.0
    probs[bg_l, 4] = 1.0
    return won | lost, probs


def tidy(boards: npt.NDArray[np.int8], probs: npt.NDArray[np.float32]
         ) -> npt.NDArray[np.float32]:
    """``probs`` (side the board is seen by) with impossible gammons and backgammons at zero
    and the cumulative order kept (``win >= win_g >= win_bg``, ``1 - win >= lose_g >= lose_bg``).
    """

    b = np.ascontiguousarray(np.asarray(boards, dtype=np.int8).reshape(-1, 26))
    p = np.array(probs, dtype=np.float32).reshape(-1, 5)
    p[:, 1] = np.minimum(p[:, 1], p[:, 0])
    p[:, 2] = np.minimum(p[:, 2], p[:, 1])
    p[:, 3] = np.minimum(p[:, 3], 1.0 - p[:, 0])
    p[:, 4] = np.minimum(p[:, 4], p[:, 3])
    bi = b.astype(np.int64)
    mine = np.clip(bi[:, 1:26], 0, None).sum(axis=1)
    theirs = np.clip(-bi[:, 1:25], 0, None).sum(axis=1) - bi[:, 0]
    p[theirs < 15, 1:3] = 0.0
    p[mine < 15, 3:5] = 0.0
    cls = classify_many(b)
    race = (cls == RACE) | (cls == BEAROFF)
    p[race & ~(bi[:, 1:7] < 0).any(axis=1), 2] = 0.0
    p[race & ~(bi[:, 19:25] > 0).any(axis=1), 4] = 0.0
    return p


class Bgsage:
    """bgsage's evaluation at one depth, with its strategies built once.

    ``plies`` is bgsage's naming (1 = raw net, 2 = gnubg 1-ply, 3 = gnubg 2-ply); ``threads``
    the threads of its batch function (1 inside worker processes).
    """

    def __init__(self, plies: int = 1, threads: int = 1,
                 filter_max_moves: int = FILTER_MAX_MOVES,
                 filter_threshold: float = FILTER_THRESHOLD) -> None:
        if plies not in PLIES:
            raise ValueError(f"bgsage plies must be one of {PLIES}, not {plies!r}")
        c = _cpp()
        from bgsage.weights import bearoff_db_path, default_weights

        w = default_weights()
        self.plies = plies
        self.threads = threads
        self.filter_max_moves = filter_max_moves
        self.filter_threshold = filter_threshold
        self._c = c
        self._owner = c.CubeOwner.CENTERED
        self._db = c.BearoffDB()
        if not self._db.load(bearoff_db_path()):
            raise RuntimeError(f"bgsage's bear-off database did not load ({bearoff_db_path()})")
        self.raw = c.BearoffStrategy(
            c.create_strategy(w.strategy_type, w.weight_paths_list, w.hidden_sizes_list),
            self._db)
        self.deep: Any = None
        if plies > 1:
            self.deep = c.create_multipy(
                w.strategy_type, w.weight_paths_list, w.hidden_sizes_list, n_plies=plies,
                filter_max_moves=filter_max_moves, filter_threshold=filter_threshold,
                parallel_evaluate=False, parallel_threads=0)
            c.multipy_set_bearoff_db(self.deep, self._db)

    @property
    def _strategy(self) -> Any:
        return self.deep if self.deep is not None else self.raw

    def post_move(self, boards: npt.NDArray[np.int8]) -> npt.NDArray[np.float32]:
        """Probabilities of the side that has just moved, for boards seen by that side
        (gbot layout, ``int8[n, 26]``), before the opponent rolls."""
        b = np.asarray(boards, dtype=np.int8).reshape(-1, 26)
        out = np.empty((b.shape[0], 5), dtype=np.float32)
        done, exact = finished(b)
        out[done] = exact[done]
        todo = np.flatnonzero(~done)
        if todo.size:
            rows = [(row, self._owner) for row in to_bgsage(b[todo]).tolist()]
            res = self._c.batch_evaluate_post_move(rows, self._strategy, self.threads,
                                                   jacoby=False)
            out[todo] = tidy(b[todo], np.array([r["probs"] for r in res], dtype=np.float32))
            if self.deep is not None:
                self.deep.clear_cache()
        return out

    def probabilities(self, boards: npt.NDArray[np.int8]) -> npt.NDArray[np.float32]:
        """Cubeless probabilities of the side to move (gbot boards ``int8[n, 26]``)."""
        b = np.asarray(boards, dtype=np.int8).reshape(-1, 26)
        return invert(self.post_move(np.ascontiguousarray(-b[:, ::-1])))

    __call__ = probabilities

    def candidates(self, board: Board, d1: int, d2: int) -> npt.NDArray[np.int8]:
        """bgsage's legal results of a roll (gbot layout, mover still to move); empty when the
        roll cannot be played.

        They are gbot's results except in one rare case: the last checker borne off by one die
        where gnubg's rules make it use both (last checker on the 6-point, 6-4 to play, an
        opposing blot on the 2-point: bgsage also allows 6/off, gbot only 6/2*/off).
        """
        pre = to_bgsage(board)[0].tolist()
        got = self._c.possible_moves(pre, int(d1), int(d2))
        if not got or (len(got) == 1 and list(got[0]) == pre):
            return np.zeros((0, 26), dtype=np.int8)   # it answers a dance with the board
        return from_bgsage(got)

    def choose(self, board: Board, d1: int, d2: int,
               cands: npt.NDArray[np.int8] | None = None) -> Board | None:
        """bgsage's cubeless choice as its checker play makes it, or None when no move.

        Every candidate (bgsage's own, or ``cands``) is scored by the raw net with the real
        pre-move board; at depth 2 or more the best ``filter_max_moves`` within
        ``filter_threshold`` are rescored deeper.
        """
        if cands is None:
            cands = self.candidates(board, d1, d2)
        if cands.shape[0] == 0:
            return None
        if cands.shape[0] == 1:
            return np.asarray(cands[0], dtype=np.int8)
        pre = to_bgsage(board)[0].tolist()
        rows = to_bgsage(cands).tolist()
        eq = np.array([self.raw.evaluate_board(r, pre)["equity"] for r in rows])
        if self.deep is not None:
            order = np.argsort(-eq, kind="stable")
            keep = [int(i) for i in order[:self.filter_max_moves]
                    if eq[order[0]] - eq[i] <= self.filter_threshold]
            deep = np.full(eq.shape, -np.inf)
            for i in keep:
                deep[i] = self.deep.evaluate_board(rows[i], pre)["equity"]
            self.deep.clear_cache()
            eq = deep
        return np.asarray(cands[int(np.argmax(eq))], dtype=np.int8)


def equity(probs: npt.NDArray[np.floating]) -> npt.NDArray[np.float64]:
    """Cubeless money equity of rows of five probabilities."""
    out: npt.NDArray[np.float64] = np.asarray(probs, dtype=np.float64).reshape(-1, 5) @ _EQ - 1.0
    return out
