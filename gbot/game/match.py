"""The match state: a frozen value (score, cube, Crawford, dice, turn, board) and the rule switches.

:class:`MatchState` follows GNU Backgammon's match-ID fields and numbering (player 1 is the
bottom player, X; player 0 is O). :class:`Rules` holds the switches a table is created with.
The transitions between states live in :mod:`gbot.game.referee`; this module only owns the values.

The referee keeps the board in the state: ``board`` is a tuple of 26 ints in the layout of
:mod:`gbot.core.board`, seen by ``player_on_roll`` (empty when the state was built without one,
e.g. from a Match ID alone).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from gbot.core.limits import CENTRE as CENTRE
from gbot.core.limits import MAX_CUBE as MAX_CUBE
from gbot.core.limits import MAX_MATCH_LENGTH as MAX_MATCH_LENGTH
from gbot.errors import MatchRuleError
from gbot.game.notations import match_id
from gbot.game.notations.match_id import MatchIdFields
from gbot.game.variations import VARIATIONS, checkers_per_side

if TYPE_CHECKING:
    from gbot.core.board import Board

# CENTRE (gbot.core.limits): ``cube_owner`` of a centred cube (-1; players are 0 and 1).

# MAX_CUBE (gbot.core.limits): the largest cube a Match ID can hold (its 4-bit log2 field);
# the cap when ``cube_cap`` is 0.

# MAX_MATCH_LENGTH (gbot.core.limits): the longest match gbot plays (gnubg 1.07's 64).

CUBE_CAPS = (0, 2, 4, 8, 16, 32, 64)
END_MODES = ("single", "gammons", "backgammons")
OPENERS = ("roll", "loser", "alternate")
RESIGNATIONS = ("offer", "position")


class GameState(enum.IntEnum):
    """The game-state field of a gnubg Match ID."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


@dataclass(frozen=True)
class Rules:
    """The rule switches of a table; the defaults are gnubg's and FIBS's standard game."""

    cube_enabled: bool = True
    cube_cap: int = 0
    """0 = no cap (gnubg's 2**15 limit), else 2, 4, 8, 16, 32 or 64."""
    end_mode: str = "backgammons"
    """``"single"`` (every loss 1), ``"gammons"`` (gammon and backgammon 2), ``"backgammons"``."""
    jacoby: bool = False
    beavers: bool = False
    raccoons: bool = False
    caucasian: bool = False
    draw_last_roll: bool = False
    opener: str = "roll"
    """Who opens game 2..n: ``"roll"`` (opening roll each game), ``"loser"``, ``"alternate"``."""
    variation: str = "standard"
    """A name of :data:`gbot.game.variations.VARIATIONS` (``"standard"``, ``"nackgammon"``,
    ``"hyper1"`` ...)."""
    resignation: str = "offer"
    """``"offer"`` (gnubg/FIBS: the resigner offers single, gammon or backgammon, the other
    side accepts or rejects) or ``"position"`` (site style: scored at once by the resigner's
    actual position under the end mode)."""

    def __post_init__(self) -> None:
        """Reject switch values outside their documented sets."""
        if self.cube_cap not in CUBE_CAPS:
            raise MatchRuleError(f"cube cap must be one of {CUBE_CAPS}, got {self.cube_cap!r}")
        if self.end_mode not in END_MODES:
            raise MatchRuleError(f"end mode must be one of {END_MODES}, got {self.end_mode!r}")
        if self.opener not in OPENERS:
            raise MatchRuleError(f"opener must be one of {OPENERS}, got {self.opener!r}")
        if self.variation not in VARIATIONS:
            raise MatchRuleError(f"variation must be one of {VARIATIONS}, got {self.variation!r}")
        if self.resignation not in RESIGNATIONS:
            raise MatchRuleError(
                f"resignation must be one of {RESIGNATIONS}, got {self.resignation!r}")

    def in_force(self, match_length: int) -> Rules:
        """The switches as they apply to a match of ``match_length`` (0 = money): Jacoby,
        beavers and raccoons are money rules that need the cube, off otherwise."""
        money = match_length == 0 and self.cube_enabled
        return replace(self, jacoby=self.jacoby and money, beavers=self.beavers and money,
                       raccoons=self.raccoons and money)

    @property
    def max_cube(self) -> int:
        """The largest cube value allowed (1 with the cube off)."""
        if not self.cube_enabled:
            return 1
        return self.cube_cap or MAX_CUBE

    @property
    def max_end_multiplier(self) -> int:
        """The largest game-end multiplier of the end mode (1, 2 or 3)."""
        return {"single": 1, "gammons": 2, "backgammons": 3}[self.end_mode]

    def end_multiplier(self, kind: int) -> int:
        """Points per cube for a loss of ``kind`` (1 single, 2 gammon, 3 backgammon)."""
        if kind not in (1, 2, 3):
            raise MatchRuleError(f"game-end kind must be 1, 2 or 3, got {kind!r}")
        return min(kind, self.max_end_multiplier)

    def stake_to_cover(self, stake: int) -> int:
        """What a player must be able to cover: stake x cube cap x end-mode multiplier.

        With the cube off the cube factor is 1; with no cap it is gnubg's limit.
        """
        return stake * self.max_cube * self.max_end_multiplier

    @property
    def checkers(self) -> int:
        """Checkers per side in this variation."""
        return checkers_per_side(self.variation)


@dataclass(frozen=True)
class Switch:
    """One rule switch as the edges name it: the :class:`Rules` field, its name in HTTP
    requests and replies, its values (``()`` for a yes/no switch), its command-line option
    and a one-line help. The command line, the HTTP API and its OpenAPI document are built
    from :data:`SWITCHES`, so a new switch is a :class:`Rules` field and one row here."""

    field: str
    help: str
    choices: tuple[Any, ...] = ()
    web: str = ""
    cli: str = ""
    """The option's spelling: ``--name/--no-name`` (default), ``--no-name`` (an off flag) or
    ``--name`` (an on flag)."""

    @property
    def key(self) -> str:
        """The name in HTTP requests and replies."""
        return self.web or self.field

    @property
    def option(self) -> str:
        """The command-line option."""
        return self.cli or f"--{self.field.replace('_', '-')}/--no-{self.field.replace('_', '-')}"

    def value(self, rules: Rules) -> Any:
        """This switch's value in ``rules``."""
        return getattr(rules, self.field)


SWITCHES: tuple[Switch, ...] = (
    Switch("jacoby", "Money games: gammons count only once the cube was turned (gnubg's "
           "default)."),
    Switch("beavers", "Money games: the doubled side may beaver (gnubg's default)."),
    Switch("cube_cap", "Highest cube value (0 = no cap).", CUBE_CAPS, cli="--cube-cap"),
    Switch("cube_enabled", "The doubling cube (off: play without it).", web="cube",
           cli="--no-cube"),
    Switch("end_mode", "What a game can be worth: single only, up to gammons, up to "
           "backgammons.", END_MODES, cli="--end-mode"),
    Switch("caucasian", "Caucasian rule: a checker that hits in its home board may not join "
           "its own checkers later in the same turn.", cli="--caucasian"),
    Switch("draw_last_roll", "Draw variant: the other side gets one last roll to draw.",
           cli="--draw-last-roll"),
    Switch("opener", "Who opens games after the first.", OPENERS, cli="--opener"),
    Switch("variation", "Starting position.", VARIATIONS, cli="--variation"),
    Switch("resignation", "Resignations offered and answered (gnubg, FIBS), or scored at once "
           "by the resigner's position (site style).", RESIGNATIONS, cli="--resignation"),
)
"""Every rule switch, in the order the edges list them."""

@dataclass(frozen=True)
class MatchState:
    """One moment of a match or money session, as gnubg's Match ID plus the board.

    ``player_on_roll`` is gnubg's ``fMove`` (whose turn it is), ``player_to_act`` is ``fTurn``
    (who must decide now; it differs while a double or resignation is pending). ``dice`` is
    ``(0, 0)`` before the roll; during the opening roll of a game (``game_state`` NONE) the
    dice are ``(die of player 0, die of player 1)``.
    """

    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    cube_value: int = 1
    cube_owner: int = CENTRE
    player_on_roll: int = 0
    player_to_act: int = 0
    dice: tuple[int, int] = (0, 0)
    crawford: bool = False
    game_state: GameState = GameState.PLAYING
    double_offered: bool = False
    resign_offered: int = 0
    rules: Rules = field(default_factory=Rules)
    # --- referee bookkeeping (defaults keep states built from IDs valid) ---
    board: tuple[int, ...] = ()
    """26 ints in the :mod:`gbot.core.board` layout seen by ``player_on_roll``; () = unknown."""
    game_number: int = 0
    """0-based number of the current (or just finished) game of the match or session."""
    game_opener: int = -1
    """Who played first in the current game (-1 before its opening roll)."""
    winner: int = -1
    """Winner of the finished game (``game_state`` OVER/RESIGNED/DROPPED); -1 otherwise or draw."""
    game_points: int = 0
    """Points the finished game scored for ``winner`` (0 for a draw or while playing)."""
    final_roll: bool = False
    """Draw-on-last-roll: the opener has borne off, the player on roll takes the last roll."""
    beavers: int = 0
    """Beavers (and raccoons) on the pending double: 0 plain double, 1 beaver, 2 raccoon."""
    turn: int = 0
    """Turns played in the current game (0 before the first play)."""
    crawford_done: bool = False
    """The Crawford game of this match has been played (or has started)."""

    @property
    def post_crawford(self) -> bool:
        """Match play, someone at match_length - 1, and not the Crawford game."""
        if self.match_length <= 0 or self.crawford:
            return False
        return self.match_length - 1 in self.score

    @property
    def is_money(self) -> bool:
        """Money play (no match length)."""
        return self.match_length == 0

    @property
    def match_over(self) -> bool:
        """A match whose length someone has reached."""
        return self.match_length > 0 and max(self.score) >= self.match_length

    @property
    def beaver_allowed(self) -> bool:
        """Whether a double of the current cube may be beavered under the rules: money play
        with beavers on, the cube in use and room on it for the redouble (the rule alone;
        :func:`gbot.game.referee.may_beaver` adds a pending double and the beaver count, and
        :func:`gbot.core.cubemath.beaver_allowed` is its compiled twin)."""
        r = self.rules
        return (self.match_length == 0 and r.beavers and r.cube_enabled
                and self.cube_value * 4 <= r.max_cube)

    def may_double(self, player: int) -> bool:
        """Whether the cube is available to ``player`` now: cube on, in play, owned or centred.

        Checks the cube off switch, the cap, the Crawford game, ownership, a game in play and no
        pending double or resignation; the turn and roll timing is the referee's business
        (:func:`gbot.game.referee.can_double`).
        """
        r = self.rules
        if not r.cube_enabled or self.game_state != GameState.PLAYING:
            return False
        if self.double_offered or self.resign_offered or self.final_roll or self.match_over:
            return False
        if self.match_length > 0 and self.crawford:
            return False
        if self.cube_owner not in (CENTRE, player):
            return False
        return self.cube_value * 2 <= r.max_cube

    def board_array(self) -> Board:
        """``board`` as a fresh ``int8[26]`` array (seen by ``player_on_roll``)."""
        import numpy as np

        if len(self.board) != 26:
            raise MatchRuleError(f"this match state has no board: {self.board!r}")
        return np.array(self.board, dtype=np.int8)

    @classmethod
    def from_match_id(cls, mid: str, rules: Rules | None = None) -> MatchState:
        """The state a gnubg Match ID describes (:mod:`gbot.game.notations.match_id` reads the
        ID)."""
        return state_from_match_id(match_id.decode(mid), rules)

    def match_id(self) -> str:
        """The gnubg Match ID of this state (:mod:`gbot.game.notations.match_id` writes the ID)."""
        return str(match_id.encode(match_id_fields(self)))


def state_from_match_id(fields: MatchIdFields, rules: Rules | None = None) -> MatchState:
    """The :class:`MatchState` of a Match ID's ``fields``; the ID's Jacoby bit overrides
    ``rules``.

    ``crawford_done`` is inferred for a game in play (the Crawford game, or a match where
    someone is at match point outside it); the board is unknown (empty).
    """
    base = rules if rules is not None else Rules()
    in_play = fields.game_state == GameState.PLAYING
    at_point = fields.match_length > 0 and fields.match_length - 1 in fields.score
    return MatchState(
        match_length=fields.match_length,
        score=fields.score,
        cube_value=fields.cube,
        cube_owner=fields.cube_owner,
        player_on_roll=fields.dice_owner,
        player_to_act=fields.turn,
        dice=fields.dice,
        crawford=fields.crawford,
        game_state=GameState(fields.game_state),
        double_offered=fields.doubled,
        resign_offered=fields.resigned,
        rules=replace(base, jacoby=fields.jacoby),
        crawford_done=fields.crawford or (in_play and at_point),
    )


def match_id_fields(state: MatchState) -> MatchIdFields:
    """The Match ID fields of ``state`` (:class:`gbot.errors.MatchIdError` if it cannot be
    written)."""
    return MatchIdFields(
        cube=state.cube_value,
        cube_owner=state.cube_owner,
        dice_owner=state.player_on_roll,
        crawford=state.crawford,
        game_state=int(state.game_state),
        turn=state.player_to_act,
        doubled=state.double_offered,
        resigned=state.resign_offered,
        dice=(int(state.dice[0]), int(state.dice[1])),
        match_length=state.match_length,
        score=(int(state.score[0]), int(state.score[1])),
        jacoby=state.rules.jacoby,
    )

