"""The text ``gbot hint`` and ``gbot play`` print for a hint: the ranked plays of a roll, a
cube decision before rolling, the answer to a pending double."""

from __future__ import annotations

from typing import Any

from gbot.engine.hints import describe_state
from gbot.game.boardtext import dice_text

__all__ = ["SE_NOTE", "cube_hint_lines", "fmt_probs", "pct", "play_hint_lines",
           "take_hint_lines"]

SE_NOTE = "  ± is one standard error"
"""The footnote of the rollout tables (``gbot rollout``, ``gbot hint --rollout``): what the
± figures are."""


def fmt_probs(p: tuple[float, ...]) -> str:
    """The five probabilities as gnubg lists them: win, gammon, backgammon - lose, ..."""
    win, wg, wbg, lg, lbg = p
    return f"{win:.3f} {wg:.3f} {wbg:.3f} - {1 - win:.3f} {lg:.3f} {lbg:.3f}"


def pct(v: float) -> str:
    """A probability as a percentage, six wide with two decimals (`` 53.20%``)."""
    return f"{100 * v:6.2f}%"


def play_hint_lines(hints: list[Any], dice: tuple[int, int], state: Any, ply: int,
                    by_state: bool) -> list[str]:
    """The table ``gbot hint`` prints for the plays of one roll."""
    match = state.match_length > 0
    how = ("match winning chance" if match else "cubeful equity") if by_state \
        else "cubeless equity"
    out = [f"X to play {dice_text(dice)}: {describe_state(state)}",
           f"plays ranked as gbot plays them, by {how}, searched to {ply}-ply "
           "(win g bg - lose g bg)"]
    if not hints:
        return [*out, "  no legal play"]
    if match:
        out.append("     #  play                          ply      MWC      EMG  cubeless     diff")
    else:
        out.append("     #  play                          ply  cubeful  cubeless     diff")
    best = hints[0]

    def key(h: Any) -> float:
        return float(h.value if by_state else h.cubeless)

    for i, h in enumerate(hints, 1):
        diff = key(h) - key(best)
        d = "" if i == 1 else (f"{100 * diff:+7.2f}%" if match and by_state else f"{diff:+8.3f}")
        mark = "*" if h.chosen else " "
        name = h.play.notation or "(no move)"
        if match:
            row = (f"  {mark}{i:3d}  {name:<28s} {h.ply:4d}  {pct(h.mwc)}  {h.cubeful:+7.3f}"
                   f"  {h.cubeless:+8.3f} {d:>8s}")
        else:
            row = (f"  {mark}{i:3d}  {name:<28s} {h.ply:4d}  {h.cubeful:+7.3f}"
                   f"  {h.cubeless:+8.3f} {d:>8s}")
        out += [row.rstrip(), f"        {fmt_probs(h.probabilities)}"]
    out.append("  * gbot's play")
    return out


def cube_hint_lines(h: Any, state: Any) -> list[str]:
    """What ``gbot hint`` prints for a cube decision before rolling."""
    match = h.mwc is not None
    out = [f"cube decision at {h.ply}-ply: {describe_state(state)}",
           f"  {fmt_probs(h.probabilities)}   cubeless equity {h.cubeless:+.3f}"]
    if not h.can_double:
        nd = h.equities[0]
        extra = f"  (MWC {pct(h.mwc[0]).strip()})" if match else ""
        return [*out, f"  cubeful equity {nd:+.3f}{extra}", f"  {h.words}"]
    nd, dt, dp = h.equities
    proper = {"no_double": 0, "too_good_take": 0, "too_good_pass": 0,
              "double_take": 1, "double_pass": 2}[h.action]
    if h.action == "double_take" and h.response == "beaver":
        proper = 1
    rows = [("No double", nd), ("Double, take", dt), ("Double, pass", dp)]
    out.append("  cubeful equities" + ("       EMG      MWC" if match else ":"))
    ref = rows[proper][1]
    for i, (name, eq) in enumerate(rows):
        diff = "" if i == proper else f"  ({eq - ref:+.3f})"
        mwc = f"  {pct(h.mwc[i])}" if match else ""
        out.append(f"  {i + 1}. {name:<14s} {eq:+.3f}{mwc}{diff}")
    out.append(f"  Proper cube action: {h.words}")
    taker = {"take": "take", "pass": "pass", "beaver": "beaver"}[h.response]
    if h.response == "beaver":
        view = f"O beavers: {-2 * dt:+.3f} after a beaver, {-dt:+.3f} after a take"
    else:
        view = f"O {'passes' if taker == 'pass' else 'takes'}: {-dt:+.3f} after taking, " \
               f"{-dp:+.3f} after passing"
    out.append(f"  The taker's view: {view}")
    return out


def take_hint_lines(h: Any, state: Any) -> list[str]:
    """What ``gbot hint`` prints when a double is pending."""
    out = [f"double offered, {h.ply}-ply: {describe_state(state)}",
           f"  the doubled side, O:  {fmt_probs(h.probabilities)}"]
    match = h.mwc_take is not None
    rows = [("Take", h.take, h.mwc_take), ("Pass", h.pass_, h.mwc_pass)]
    if h.beaver is not None:
        rows.append(("Beaver", h.beaver, None))
    for name, eq, mwc in rows:
        out.append(f"  {name:<7s} {eq:+.3f}" + (f"  {pct(mwc)}" if match and mwc is not None
                                                else ""))
    word = {"take": "Take", "drop": "Pass", "beaver": "Beaver"}[h.answer]
    out.append(f"  Proper answer: {word}")
    return out
