"""A slow, plain-Python legal-move generator written straight from the rules.

Boards are lists of 26 ints in gbot's layout (side to move positive, my bar at 25, the
opponent's bar at 0 stored negative). Every ordering of the dice and every checker is tried;
results are de-duplicated by final position, then the "as many dice as possible" and
"larger die" rules filter them.
"""

from __future__ import annotations


def _all_home(b: list[int]) -> bool:
    return all(b[i] <= 0 for i in range(7, 26))


def _single_moves(b: list[int], die: int, caucasian_marks: list[int] | None
                  ) -> list[tuple[list[int], list[int] | None]]:
    """Boards (and Caucasian marks) after moving one checker ``die`` pips."""
    results = []
    sources = [25] if b[25] > 0 else [p for p in range(24, 0, -1) if b[p] > 0]
    for src in sources:
        dest = src - die
        if dest >= 1:
            if b[dest] < -1:
                continue
        else:
            if not _all_home(b):
                continue
            if dest < 0 and any(b[p] > 0 for p in range(src + 1, 7)):
                continue
        kinds = [False]
        if caucasian_marks is not None and caucasian_marks[src] > 0:
            kinds = [True] if b[src] == caucasian_marks[src] else [False, True]
        for moving_hitter in kinds:
            if moving_hitter and dest >= 1 and b[dest] > 0:
                continue  # a hitter may not join its own checkers this turn
            nb = list(b)
            marks = None if caucasian_marks is None else list(caucasian_marks)
            nb[src] -= 1
            hit = False
            if dest >= 1:
                if nb[dest] == -1:
                    nb[dest] = 0
                    nb[0] -= 1
                    hit = True
                nb[dest] += 1
            if marks is not None:
                if moving_hitter:
                    marks[src] -= 1
                    if dest >= 1:
                        marks[dest] += 1
                elif hit and dest <= 6:
                    marks[dest] += 1
            results.append((nb, marks))
    return results


def legal_results(board: list[int], d1: int, d2: int,
                  caucasian: bool = False) -> set[tuple[int, ...]]:
    """Set of distinct final boards (as tuples) for the roll."""
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    found: dict[tuple[int, ...], int] = {}

    def rec(b: list[int], marks: list[int] | None, dice: list[int], used: list[int]) -> None:
        nxt = _single_moves(b, dice[0], marks) if dice else []
        if not nxt:
            if used:
                key = tuple(b)
                # score: dice used, then (for one die of a non-double) the larger die
                score = 2 * len(used) + (1 if d1 != d2 and len(used) == 1
                                         and used[0] == max(d1, d2) else 0)
                found[key] = max(found.get(key, -1), score)
            return
        for nb, nm in nxt:
            rec(nb, nm, dice[1:], used + [dice[0]])

    for order in orders:
        rec(list(board), [0] * 26 if caucasian else None, order, [])
    if not found:
        return set()
    best = max(found.values())
    return {k for k, v in found.items() if v == best}
