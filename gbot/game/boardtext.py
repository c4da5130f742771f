"""A backgammon board drawn in text: the points, the bar, borne-off checkers, pips, score, cube.

:func:`draw` draws a :class:`~gbot.game.position.Position` as seen by the side on roll (``X``,
moving from 24 down to 1, home board bottom right) with the opponent as ``O``, and an
optional :class:`~gbot.game.match.MatchState` for the score and the cube. Stacks taller than five
show their count in the fifth row.
"""

from __future__ import annotations

from gbot.game.match import CENTRE, MatchState
from gbot.game.position import Position

__all__ = ["draw", "dice_text"]

_ROWS = 5


def dice_text(dice: tuple[int, int]) -> str:
    """A roll as gnubg writes it: the larger die first (``61``)."""
    return f"{max(dice)}{min(dice)}"


def _cell(count: int, row: int) -> str:
    """Row ``row`` (0 = at the edge) of a point holding ``count`` checkers (+ X, - O)."""
    n = abs(count)
    if n <= row:
        return "   "
    mark = "X" if count > 0 else "O"
    if row == _ROWS - 1 and n > _ROWS:
        return f"{n:>2d} " if n < 100 else f"{n:d}"
    return f" {mark} "


def draw(pos: Position, state: MatchState | None = None, names: tuple[str, str] = ("X", "O"),
         dice: tuple[int, int] | None = None, viewer: int | None = None) -> str:
    """The board of ``pos`` (seen by ``names[0]`` as X) with pips and borne-off counts; the
    score and the cube from ``state`` when given, seen by its player ``viewer`` (default: the
    player on roll)."""
    b = [int(v) for v in pos.board.tolist()]
    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))

    def half(points: list[int], rows: range) -> list[str]:
        lines = []
        for r in rows:
            left = "".join(_cell(b[p], r) for p in points[:6])
            right = "".join(_cell(b[p], r) for p in points[6:])
            lines.append(f" |{left}|   |{right}|")
        return lines

    def numbers(points: list[int]) -> str:
        left = "".join(f"{p:>3d}" for p in points[:6])
        right = "".join(f"{p:>3d}" for p in points[6:])
        return f"  {left}      {right}"

    pips_x, pips_o = pos.pip_count()
    off_x, off_o = pos.checkers_off()
    bar_x, bar_o = b[25], -b[0]
    edge = " +" + "-" * 18 + "+---+" + "-" * 18 + "+"
    lines = [numbers(top), edge, *half(top, range(_ROWS))]
    bar = f"O bar {bar_o}" if bar_o else ""
    lines.append(f" |{'':18s}|BAR|{'':18s}|  {bar}".rstrip())
    bar = f"X bar {bar_x}" if bar_x else ""
    lines.append(f" |{'':18s}|   |{'':18s}|  {bar}".rstrip())
    lines += half(bottom, range(_ROWS - 1, -1, -1))
    lines += [edge, numbers(bottom)]
    x_name, o_name = names
    x_label = "X" if x_name == "X" else f"X ({x_name})"
    o_label = "O" if o_name == "O" else f"O ({o_name})"
    score = ""
    if state is not None:
        me = state.player_on_roll if viewer is None else viewer
        if state.match_length > 0:
            score = (f"  score {state.score[me]}-{state.score[1 - me]}"
                     f" in a {state.match_length}-point match")
            if state.crawford:
                score += " (Crawford game)"
        else:
            score = "  money game"
    lines.append(f" {x_label}: pips {pips_x}, off {off_x}   {o_label}: pips {pips_o}, "
                 f"off {off_o}")
    extra = []
    me = -1 if state is None else state.player_on_roll if viewer is None else viewer
    if state is not None:
        if not state.rules.cube_enabled:
            extra.append("cube off")
        elif state.cube_owner == CENTRE:
            extra.append(f"cube {state.cube_value}, centred")
        else:
            owner = x_label if state.cube_owner == me else o_label
            extra.append(f"cube {state.cube_value} owned by {owner}")
        if state.double_offered:
            extra.append("double offered")
    if dice is not None:
        extra.append(f"{x_label} rolled {dice_text(dice)}")
    elif state is None or state.player_on_roll == me:
        extra.append(f"{x_label} on roll")
    lines.append((score + ("; " if score and extra else "  " if extra else "")
                  + "; ".join(extra)).rstrip())
    return "\n".join(line for line in lines if line.strip() or line == "")
