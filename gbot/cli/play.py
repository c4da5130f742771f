"""``gbot play``: a match (or money session) against gbot in the terminal.

:class:`TerminalMatch` drives a :class:`~gbot.game.referee.Referee` between a person (player 1,
drawn as ``X``) and the decision engine (player 0); it reads the person's commands through
``ask`` and writes everything through ``say``, so a test can feed it input. The finished
match can be written as ``.mat`` and ``.sgf`` files that gnubg imports.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import click

from gbot.cli.depth import MAX_PLY
from gbot.cli.hint_text import cube_hint_lines, play_hint_lines, take_hint_lines
from gbot.cli.rules import rule_options
from gbot.engine.engine import PLAY_PLY, Engine
from gbot.engine.hints import cube_hint, play_hints, take_hint
from gbot.errors import GbotError, IllegalMoveError, MoveParseError
from gbot.game.boardtext import dice_text, draw
from gbot.game.match import GameState, Rules
from gbot.game.notations.move_text import parse_move
from gbot.game.position import Position
from gbot.game.referee import Referee, can_double, may_beaver
from gbot.records import matfile, sgf

__all__ = ["TerminalMatch", "play"]

HUMAN = 1
BOT = 0
_KINDS = {1: "a single game", 2: "a gammon", 3: "a backgammon"}
_KIND_WORDS = {"single": 1, "s": 1, "1": 1, "normal": 1, "gammon": 2, "g": 2, "2": 2,
               "backgammon": 3, "bg": 3, "b": 3, "3": 3}
_QUIT_WORDS = ("quit", "exit", "q")
_YES = ("y", "yes")
_HELP_BEFORE_ROLL = """commands before you roll:
  roll (or Enter)   roll the dice
  double            offer the cube to gbot
  resign [single|gammon|backgammon]   offer to give up the game (default single)
  hint              gbot's cube analysis of your position
  board             draw the board again
  help              this list
  quit              stop, after you confirm (the games finished so far are saved with --save)"""
_HELP_MOVE = """commands after you roll:
  a move in gnubg's notation, e.g. 24/18 13/11, 8/2*/1, 6/4(2), bar/22
  part of a move    e.g. 24/18, then the rest (13/10) as the next line
  undo              take back the last part of a move entered in parts
  a number          that row of the list shown last ('plays' or 'hint')
  plays             list every legal play
  hint              gbot's ranking of your plays
  resign [single|gammon|backgammon]   offer to give up the game
  board             draw the board again (with the part of a move entered so far)
  help              this list
  quit              stop, after you confirm"""


class Quit(Exception):
    """The person stopped the match."""


class TerminalMatch:
    """One match between a person and the engine; :meth:`run` plays it to the end.

    ``ask(prompt)`` returns the person's next line (raising :class:`EOFError` or
    :class:`Quit` ends the match), ``say(text)`` shows text.
    """

    def __init__(self, engine: Any, length: int, rules: Any, seed: int | None,
                 name: str, ask: Callable[[str], str], say: Callable[[str], None],
                 hint_count: int = 5) -> None:
        self.engine = engine
        self.length = length
        self.ref = Referee(length, rules=rules, seed=seed, names=("gbot", name))
        self.ask = ask
        self.say = say
        self.name = name
        self.hint_count = hint_count
        self.quit = False

    # --- views ------------------------------------------------------------------------------
    def view(self, player: int) -> Any:
        """The position seen by ``player`` (as if on roll)."""

        s = self.ref.state
        pos = Position(s.board_array())
        return pos if s.player_on_roll == player else pos.swapped()

    def board(self, dice: tuple[int, int] | None = None, pos: Position | None = None) -> str:
        """The board as the person sees it (``pos``: another position seen by them)."""

        return draw(pos if pos is not None else self.view(HUMAN), self.ref.state,
                    names=("you", "gbot"), dice=dice, viewer=HUMAN)

    def score_line(self) -> str:
        """The score, person first."""
        s = self.ref.state
        you, bot = s.score[HUMAN], s.score[BOT]
        if self.length:
            return f"score: you {you}, gbot {bot} (match to {self.length})"
        diff = you - bot
        if not diff:
            return "money session: even"
        return f"money session: you {diff:+d} point{'' if abs(diff) == 1 else 's'}"

    # --- the loop ---------------------------------------------------------------------------
    def run(self) -> None:
        """Play until the match is over or the person quits."""

        try:
            while True:
                s = self.ref.state
                if s.game_state == GameState.NONE:
                    self._open()
                elif s.game_state != GameState.PLAYING:
                    if not self._game_over():
                        break
                elif s.resign_offered:
                    self._resignation()
                elif s.double_offered:
                    self._double_pending()
                elif s.dice == (0, 0):
                    self._before_roll()
                else:
                    self._move()
        except (Quit, EOFError, click.Abort):
            self.quit = True
            self.say("stopped.")
        self.say(f"final {self.score_line()}")

    def _open(self) -> None:
        s = self.ref.roll()
        number = s.game_number + 1
        first = "you" if s.player_on_roll == HUMAN else "gbot"
        self.say(f"\ngame {number}; {self.score_line()}")
        if s.crawford:
            self.say("this is the Crawford game: no doubling")
        you, bot = (s.dice[1], s.dice[0])
        self.say(f"opening roll: you {you}, gbot {bot}: {first} to play "
                 f"{max(s.dice)}{min(s.dice)}")
        if s.player_on_roll == HUMAN:
            self.say(self.board(s.dice))

    def _game_over(self) -> bool:
        """Report the game's end; False when the match (or session) is over."""

        s = self.ref.state
        who = "you win" if s.winner == HUMAN else "gbot wins"
        how = {GameState.DROPPED: " (double passed)", GameState.RESIGNED: " (resignation)"
               }.get(s.game_state, "")
        pts = s.game_points
        self.say(f"{who} {pts} point{'s' if pts != 1 else ''}{how}; {self.score_line()}")
        if s.match_over:
            self.say("you win the match!" if s.score[HUMAN] > s.score[BOT]
                     else "gbot wins the match.")
            return False
        if self.length == 0:
            again = self.ask("another game? [Y/n]").strip().lower()
            if again in ("n", "no", *_QUIT_WORDS):
                return False
        self.ref.next_game()
        return True

    def _line(self, prompt: str) -> str:
        """The person's next line at ``prompt``; ``quit`` stops the match once confirmed."""
        while True:
            text = self.ask(prompt).strip()
            if text.lower() not in _QUIT_WORDS:
                return text
            sure = self.ask("stop the match here? [y/N]").strip().lower()
            if sure in _YES or sure in _QUIT_WORDS:
                raise Quit
            self.say("play on")

    def _bot_view_state(self) -> Any:
        return self.ref.state

    # --- resignations and doubles -------------------------------------------------------
    def _resignation(self) -> None:
        s = self.ref.state
        level = s.resign_offered
        if s.player_to_act == HUMAN:
            self.say(self.board())
            while True:
                ans = self._line(f"gbot offers to resign {_KINDS[level]}: accept or reject?")
                a = ans.lower()
                if a in ("accept", "a", "yes", "y"):
                    self.ref.accept_resign()
                    return
                if a in ("reject", "r", "no", "n"):
                    self.ref.reject_resign()
                    self.say("you play on")
                    return
                if a == "board":
                    self.say(self.board())
                    continue
                self.say("answer accept or reject (board: draw the board)")
        ok = self.engine.accept_resignation(self.view(BOT), s, level)
        if ok:
            self.say(f"gbot accepts your resignation of {_KINDS[level]}")
            self.ref.accept_resign()
        else:
            self.say(f"gbot rejects your resignation of {_KINDS[level]}: play on")
            self.ref.reject_resign()

    def _double_pending(self) -> None:
        s = self.ref.state
        if s.player_to_act != HUMAN:
            ans = self.engine.respond_double(self.view(BOT), s)
            if ans == "beaver" and may_beaver(s):
                self.say(f"gbot beavers: the cube is now {s.cube_value * 4}, gbot keeps it")
                self.ref.beaver()
            elif ans == "drop":
                self.say("gbot passes")
                self.ref.drop()
            else:
                self.say(f"gbot takes: the cube is now {s.cube_value * 2}")
                self.ref.take()
            return
        self.say(self.board())
        beaver = may_beaver(s)
        words = "take, pass" + (" or beaver" if beaver else "")
        what = "beavers" if s.beavers else "doubles"
        while True:
            ans = self._line(f"gbot {what} to {s.cube_value * 2}: {words}?").lower()
            if ans in ("take", "t", "accept"):
                self.ref.take()
                return
            if ans in ("pass", "drop", "p", "d"):
                self.ref.drop()
                return
            if ans in ("beaver", "b") and beaver:
                self.ref.beaver()
                return
            if ans == "hint":
                self._take_hint()
            elif ans == "board":
                self.say(self.board())
            else:
                self.say(f"answer {words} (hint: gbot's view; board: draw the board)")

    def _take_hint(self) -> None:

        s = self.ref.state
        doubler_pos = Position(s.board_array())
        if s.beavers:
            self.say("  no hint after a beaver")
            return
        h = take_hint(self.engine, doubler_pos, s)
        for line in take_hint_lines(h, s)[1:]:
            self.say(line.replace("O:", "you:"))

    # --- before rolling -----------------------------------------------------------------
    def _before_roll(self) -> None:
        s = self.ref.state
        if s.player_on_roll == BOT:
            pos = self.view(BOT)
            if self.engine.may_resign(pos):
                level = self.engine.resign_offer(pos, s)
                if level:
                    self.ref.resign(level, player=BOT)
                    return
            if can_double(s) and self.engine.cube_action(pos, s) == "double":
                self.say(f"gbot doubles to {s.cube_value * 2}")
                self.ref.double()
                return
            self.ref.roll()
            return
        if not can_double(s):
            self.ref.roll()
            return
        while True:
            text = self._line("your turn: roll or double? (help)")
            cmd = text.lower().split()
            word = cmd[0] if cmd else "roll"
            if word in ("roll", "r"):
                self.ref.roll()
                return
            if word in ("double", "d"):
                self.ref.double()
                return
            if word == "resign":
                if self._human_resigns(cmd[1:]):
                    return
            elif word == "hint":
                self._cube_hint()
            elif word == "board":
                self.say(self.board())
            elif word in ("help", "?"):
                self.say(_HELP_BEFORE_ROLL)
            elif "/" in text:
                self.say("you have not rolled yet: type roll (or press Enter) first, or double")
            else:
                self.say(f"not a command here: {text!r} (help lists them)")

    def _cube_hint(self) -> None:

        s = self.ref.state
        for line in cube_hint_lines(cube_hint(self.engine, self.view(HUMAN), s), s)[1:]:
            self.say(line)

    def _human_resigns(self, args: list[str]) -> bool:
        level = 1
        if args:
            got = _KIND_WORDS.get(args[0])
            if got is None:
                self.say("resign single, gammon or backgammon")
                return False
            level = got
        try:
            self.ref.resign(level, player=HUMAN)
        except GbotError as exc:
            self.say(f"cannot resign now: {exc}")
            return False
        self.say(f"you offer to resign {_KINDS[level]}")
        return True

    # --- moves --------------------------------------------------------------------------
    def _move(self) -> None:
        s = self.ref.state
        dice = s.dice
        roll = dice_text(dice)
        if s.player_on_roll == BOT:
            pos = self.view(BOT)
            chosen = self.engine.choose_play(pos, dice, s)
            if chosen is None:
                self.say(f"gbot rolls {roll} and cannot move")
                self.ref.play(None)
            else:
                self.say(f"gbot rolls {roll} and plays {chosen.notation}")
                self.ref.play(chosen.position.board, chosen.steps)
            if self.ref.state.game_state.name == "PLAYING":
                self.say(self.board())
            return
        pos = self.view(HUMAN)
        caucasian = s.rules.caucasian
        plays = pos.legal_plays(dice, caucasian=caucasian)
        if not plays:
            self.say(f"you rolled {roll}: no legal play")
            self.ref.play(None)
            return
        if len(plays) == 1 and not plays[0].notation:
            self.ref.play(plays[0].position.board, plays[0].steps)
            return
        chosen = self._human_play(pos, dice, plays)
        if chosen is None:          # the person offered to resign instead
            return
        self.say(f"you play {chosen.notation}")
        self.ref.play(chosen.position.board, chosen.steps)

    def _human_play(self, pos: Position, dice: tuple[int, int], plays: Any) -> Any | None:
        """The play the person chooses (None: they offered to resign instead): typed whole
        or in parts, or by its row number in the list shown last (the ``plays`` list until a
        ``hint`` table replaces it)."""
        caucasian = self.ref.state.rules.caucasian
        roll = dice_text(dice)
        numbered: list[Any] = list(plays)
        listed = "plays"
        parts: list[str] = []          # a move entered in parts, so far
        while True:
            so_far = f" [so far {' '.join(parts)}]" if parts else ""
            text = self._line(f"you rolled {roll}{so_far}: your move (help)")
            cmd = text.lower().split()
            word = cmd[0] if cmd else ""
            if word in ("plays", "moves", "list"):
                numbered, listed = list(plays), "plays"
                for i, p in enumerate(plays, 1):
                    self.say(f"  {i:3d}. {p.notation}")
                continue
            if word == "hint":
                numbered, listed = self._play_hint(pos, dice), "hint"
                self.say("  (a number plays that row of this table)")
                continue
            if word == "board":
                self.say(self.board(dice, _partly_played(pos, parts, dice, caucasian)))
                continue
            if word in ("help", "?"):
                self.say(_HELP_MOVE)
                continue
            if word == "undo":
                if parts:
                    self.say(f"  took back {parts.pop()}")
                else:
                    self.say("  nothing to undo: no part of a move entered yet")
                continue
            if word == "resign":
                if self._human_resigns(cmd[1:]):
                    return None
                continue
            if word in ("double", "roll", "r"):
                self.say("you have rolled already: type your move")
                continue
            if not text:
                continue
            if text.isdigit():
                k = int(text)
                if 1 <= k <= len(numbered):
                    return numbered[k - 1]
                self.say(f"the {listed} list has {len(numbered)} rows: 1 to {len(numbered)}"
                         if listed == "hint" else
                         f"there are {len(numbered)} plays: 1 to {len(numbered)}")
                continue
            whole = " ".join([*parts, text])
            try:
                return pos.play_from_text(whole, dice, caucasian=caucasian)
            except IllegalMoveError:
                pass
            except MoveParseError:
                self.say(f"  cannot read {text!r} as a move: write it as 24/18 13/11 "
                         "('help' for more)")
                continue
            except GbotError as exc:
                self.say(f"  {exc}")
                continue
            done, left = _part_of_a_play(pos, whole, dice, plays)
            if done is not None:
                return done
            if left is not None:
                parts.append(text)
                rest = " and ".join(str(d) for d in left)
                self.say(f"  so far {' '.join(parts)}; still to play: {rest} "
                         "(undo takes back the last part)")
                continue
            if parts:
                self.say(f"  {text} does not go with {' '.join(parts)} in a legal play of "
                         f"{roll} ('undo' takes back a part, 'plays' lists them)")
            else:
                self.say(f"  {text} is not a legal play of {roll} ('plays' lists them)")

    def _play_hint(self, pos: Any, dice: tuple[int, int]) -> list[Any]:
        """Show gbot's ranking of the plays of ``dice``; the plays in the table's order."""
        s = self.ref.state
        hints = play_hints(self.engine, pos, dice, s, n=self.hint_count)
        by_state = self.engine.plays_by_state(s)
        for line in play_hint_lines(hints, dice, s, self.engine.ply, by_state)[2:]:
            self.say(line)
        return [h.play for h in hints]


# --- a move entered in parts ------------------------------------------------------------------
# The board of the mover: its checkers positive on points 1..24 and its bar 25, the opponent's
# negative (the opponent's bar at 0).
_Board = tuple[int, ...]


def _step(b: _Board, src: int, die: int) -> _Board | None:
    """``b`` after one checker moves ``die`` pips from ``src`` (a blot hit), or None when
    that single step is not allowed."""
    if b[src] <= 0 or (src != 25 and b[25] > 0):
        return None
    dst = src - die
    nb = list(b)
    nb[src] -= 1
    if dst <= 0:
        if any(b[i] > 0 for i in range(7, 26)):
            return None                     # bearing off needs every checker home
        if dst < 0 and any(b[i] > 0 for i in range(src + 1, 7)):
            return None                     # a larger die bears off the highest only
        return tuple(nb)
    if b[dst] < -1:
        return None
    if b[dst] == -1:
        nb[dst] = 0
        nb[0] -= 1
    nb[dst] += 1
    return tuple(nb)


def _after_segments(b: _Board, segs: list[tuple[int, int]],
                    pool: tuple[int, ...]) -> set[tuple[_Board, tuple[int, ...]]]:
    """Every (board, dice left) reached by playing ``segs`` in this order with dice from
    ``pool`` (a segment may take several dice)."""
    if not segs:
        return {(b, pool)}
    src, dst = segs[0]
    out: set[tuple[_Board, tuple[int, ...]]] = set()

    def walk(board: _Board, cur: int, left: tuple[int, ...]) -> None:
        if cur == dst:
            out.update(_after_segments(board, segs[1:], left))
            return
        for die in set(left):
            if cur - die < dst and dst != 0:
                continue
            nb = _step(board, cur, die)
            if nb is not None:
                rest = list(left)
                rest.remove(die)
                walk(nb, max(cur - die, 0), tuple(rest))

    walk(b, src, pool)
    return out


def _finishes(b: _Board, pool: tuple[int, ...]) -> set[_Board]:
    """Every board reached from ``b`` by playing some or all of the dice of ``pool``."""
    out = {b}
    for die in set(pool):
        rest = list(pool)
        rest.remove(die)
        for src in range(1, 26):
            nb = _step(b, src, die)
            if nb is not None:
                out |= _finishes(nb, tuple(rest))
    return out


def _pool(dice: tuple[int, int]) -> tuple[int, ...]:
    return (dice[0],) * 4 if dice[0] == dice[1] else (max(dice), min(dice))


def _readings(pos: Position, text: str,
              dice: tuple[int, int]) -> set[tuple[_Board, tuple[int, ...]]]:
    """Every (board, dice left) the written segments of ``text`` can lead to."""
    try:
        segs = parse_move(text)
    except GbotError:
        return set()
    pool = _pool(dice)
    if not segs or len(segs) > len(pool):
        return set()
    start = tuple(int(v) for v in pos.board.tolist())
    out: set[tuple[_Board, tuple[int, ...]]] = set()
    for order in set(itertools.permutations(segs)):
        out |= _after_segments(start, list(order), pool)
    return out


def _part_of_a_play(pos: Position, text: str, dice: tuple[int, int],
                    plays: Any) -> tuple[Any, tuple[int, ...] | None]:
    """``(play, None)`` when ``text`` is a whole legal play after all; ``(None, dice left)``
    when it is the first part of one; ``(None, None)`` when it is neither."""
    by_board = {tuple(int(v) for v in p.position.board.tolist()): p for p in plays}
    readings = _readings(pos, text, dice)
    for board, _ in readings:
        if board in by_board:
            return by_board[board], None
    for board, left in sorted(readings, key=lambda r: -len(r[1])):
        if left and _finishes(board, left) & by_board.keys():
            return None, left
    return None, None


def _partly_played(pos: Position, parts: list[str], dice: tuple[int, int],
                   caucasian: bool) -> Position | None:
    """The position after the parts of a move entered so far (None: none entered)."""
    if not parts:
        return None
    plays = pos.legal_plays(dice, caucasian=caucasian)
    finals = {tuple(int(v) for v in p.position.board.tolist()) for p in plays}
    for board, left in _readings(pos, " ".join(parts), dice):
        if _finishes(board, left) & finals:
            return Position(list(board))
    return None


def save(record: Any, paths: tuple[str, ...], say: Callable[[str], None]) -> None:
    """Write ``record`` to each path, ``.mat`` or ``.sgf`` by its suffix."""

    for p in paths:
        writer = sgf.write if p.lower().endswith(".sgf") else matfile.write
        try:
            writer(record, p)
        except (GbotError, OSError) as exc:
            say(f"could not write {p}: {exc}")
            continue
        say(f"saved {p} (gnubg: import {'sgf' if p.lower().endswith('.sgf') else 'mat'} {p})")


@click.command()
@click.option("--length", type=click.IntRange(0, 64), default=5, show_default=True,
              help="Match length (0 = a money session, game after game).")
@click.option("--ply", type=click.IntRange(0, MAX_PLY), default=PLAY_PLY, show_default=True,
              help="gbot's look-ahead (0 for speed).")
@click.option("--seed", type=int, default=None, help="Seed for the dice.")
@click.option("--name", default="you", show_default=True, help="Your name in the match file.")
@click.option("--save", "save_paths", multiple=True, type=click.Path(dir_okay=False),
              help="Write the match to this .mat or .sgf file (repeatable).")
@rule_options("jacoby", "beavers", "cube_enabled", "cube_cap", "end_mode")
def play(length: int, ply: int, seed: int | None, name: str, save_paths: tuple[str, ...],
         rules: Rules) -> None:
    """Play a match against gbot in the terminal (type help at any prompt)."""

    rules = rules.in_force(length)
    engine = Engine(ply=ply, rules=rules)

    def ask(prompt: str) -> str:
        return str(click.prompt(prompt, default="", show_default=False))

    game = TerminalMatch(engine, length, rules, seed, name, ask, click.echo)
    what = f"a {length}-point match" if length else "a money session"
    click.echo(f"{what} against gbot ({ply}-ply); you are X, moving from 24 to 1; "
               "type help at any prompt")
    game.run()
    if save_paths:
        save(game.ref.record, save_paths, click.echo)
