"""``gbot play``: a match (or money session) against gbot in the terminal.

:class:`TerminalMatch` drives a :class:`~gbot.game.referee.Referee` between a person (player 1,
drawn as ``X``) and the decision engine (player 0); it reads the person's commands through
``ask`` and writes everything through ``say``, so a test can feed it input. The finished
match can be written as ``.mat`` and ``.sgf`` files that gnubg imports.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from gbot.cli.hint_text import cube_hint_lines, play_hint_lines, take_hint_lines
from gbot.cli.rules import rule_options
from gbot.engine.engine import PLAY_PLY, Engine
from gbot.engine.hints import cube_hint, play_hints, take_hint
from gbot.errors import GbotError, IllegalMoveError, MoveParseError
from gbot.game.boardtext import draw
from gbot.game.match import GameState, Rules
from gbot.game.position import Position
from gbot.game.referee import Referee, can_double, may_beaver
from gbot.records import matfile, sgf

__all__ = ["TerminalMatch", "play"]

HUMAN = 1
BOT = 0
_KINDS = {1: "a single game", 2: "a gammon", 3: "a backgammon"}
_KIND_WORDS = {"single": 1, "s": 1, "1": 1, "normal": 1, "gammon": 2, "g": 2, "2": 2,
               "backgammon": 3, "bg": 3, "b": 3, "3": 3}
_HELP_BEFORE_ROLL = """commands before you roll:
  roll (or Enter)   roll the dice
  double            offer the cube to gbot
  resign [single|gammon|backgammon]   offer to give up the game (default single)
  hint              gbot's cube analysis of your position
  board             draw the board again
  help              this list
  quit              stop (the games finished so far are saved with --save)"""
_HELP_MOVE = """commands after you roll:
  a move in gnubg's notation, e.g. 24/18 13/11, 8/2*/1, 6/4(2), bar/22
  a number          the play of that number in the 'plays' list
  plays             list every legal play
  hint              gbot's ranking of your plays
  resign [single|gammon|backgammon]   offer to give up the game
  board             draw the board again
  help              this list
  quit              stop"""


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

    def board(self, dice: tuple[int, int] | None = None) -> str:
        """The board as the person sees it."""

        return draw(self.view(HUMAN), self.ref.state, names=("you", "gbot"), dice=dice,
                    viewer=HUMAN)

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
            again = self._line("another game? [Y/n]").lower()
            if again in ("n", "no", "q", "quit"):
                return False
        self.ref.next_game()
        return True

    def _line(self, prompt: str) -> str:
        text = self.ask(prompt).strip()
        if text.lower() in ("quit", "exit", "q"):
            raise Quit
        return text

    def _bot_view_state(self) -> Any:
        return self.ref.state

    # --- resignations and doubles -------------------------------------------------------
    def _resignation(self) -> None:
        s = self.ref.state
        level = s.resign_offered
        if s.player_to_act == HUMAN:
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
        roll = f"{max(dice)}{min(dice)}"
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
        while True:
            text = self._line(f"you rolled {roll}: your move (help)")
            cmd = text.lower().split()
            word = cmd[0] if cmd else ""
            if word in ("plays", "moves", "list"):
                for i, p in enumerate(plays, 1):
                    self.say(f"  {i:3d}. {p.notation}")
                continue
            if word == "hint":
                self._play_hint(pos, dice)
                continue
            if word == "board":
                self.say(self.board(dice))
                continue
            if word in ("help", "?"):
                self.say(_HELP_MOVE)
                continue
            if word == "resign":
                if self._human_resigns(cmd[1:]):
                    return
                continue
            if word in ("double", "roll"):
                self.say("you have rolled already: type your move")
                continue
            if not text:
                continue
            if text.isdigit():
                k = int(text)
                if 1 <= k <= len(plays):
                    chosen = plays[k - 1]
                    break
                self.say(f"there are {len(plays)} plays: 1 to {len(plays)}")
                continue
            try:
                chosen = pos.play_from_text(text, dice, caucasian=caucasian)
                break
            except IllegalMoveError:
                self.say(f"  {text} is not a legal play of {roll} ('plays' lists them)")
            except MoveParseError:
                self.say(f"  cannot read {text!r} as a move: write it as 24/18 13/11 "
                         "('help' for more)")
            except GbotError as exc:
                self.say(f"  {exc}")
        self.say(f"you play {chosen.notation}")
        self.ref.play(chosen.position.board, chosen.steps)
        if self.ref.state.game_state.name == "PLAYING":
            self.say(self.board())

    def _play_hint(self, pos: Any, dice: tuple[int, int]) -> None:

        s = self.ref.state
        hints = play_hints(self.engine, pos, dice, s, n=self.hint_count)
        by_state = self.engine.plays_by_state(s)
        for line in play_hint_lines(hints, dice, s, self.engine.ply, by_state)[2:]:
            self.say(line)


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
@click.option("--ply", type=click.IntRange(0, 4), default=PLAY_PLY, show_default=True,
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
