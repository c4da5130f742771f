"""A seeded random player for referee tests, and a loop that plays whole matches with it.

The player picks uniformly among legal results and takes cube and resignation decisions with
small fixed probabilities, so every branch of the referee is visited over many matches.
"""

from __future__ import annotations

import random

import numpy as np

from gbot.game.match import GameState, MatchState, Rules
from gbot.game.referee import Referee, can_double, legal_results, may_beaver


class RandomPlayer:
    """Random but legal decisions, from a seeded stream."""

    def __init__(self, seed: int, p_double: float = 0.08, p_take: float = 0.7,
                 p_beaver: float = 0.3, p_resign: float = 0.01, p_accept: float = 0.6) -> None:
        self.rng = random.Random(seed)
        self.p_double = p_double
        self.p_take = p_take
        self.p_beaver = p_beaver
        self.p_resign = p_resign
        self.p_accept = p_accept

    def choose(self, results: np.ndarray) -> np.ndarray | None:
        """One of the legal results, or None when there are none."""
        if len(results) == 0:
            return None
        return results[self.rng.randrange(len(results))]

    def step(self, ref: Referee) -> None:
        """Take one decision for whoever is to act in ``ref``."""
        s = ref.state
        r = self.rng.random
        if s.game_state == GameState.NONE:
            ref.roll()
        elif s.double_offered:
            if may_beaver(s) and r() < self.p_beaver:
                ref.beaver()
            elif r() < self.p_take:
                ref.take()
            else:
                ref.drop()
        elif s.resign_offered:
            if r() < self.p_accept:
                ref.accept_resign()
            else:
                ref.reject_resign()
        elif r() < self.p_resign:
            kind = None if s.rules.resignation == "position" else self.rng.randint(1, 3)
            ref.resign(kind)
        elif s.dice == (0, 0):
            if can_double(s) and r() < self.p_double:
                ref.double()
            else:
                ref.roll()
        else:
            ref.play(self.choose(legal_results(s)))


def random_rules(rng: random.Random, money: bool) -> Rules:
    """Random rule switches (beavers, raccoons and Jacoby only for money)."""
    return Rules(
        cube_enabled=rng.random() < 0.85,
        cube_cap=rng.choice((0, 2, 4, 8, 16, 32, 64)),
        end_mode=rng.choice(("single", "gammons", "backgammons")),
        jacoby=money and rng.random() < 0.5,
        beavers=money and rng.random() < 0.5,
        raccoons=money and rng.random() < 0.5,
        caucasian=rng.random() < 0.3,
        draw_last_roll=rng.random() < 0.3,
        opener=rng.choice(("roll", "loser", "alternate")),
        variation=rng.choice(("standard", "standard", "nackgammon", "hyper1", "hyper2",
                              "hyper3")),
        resignation=rng.choice(("offer", "position")),
    )


def play_match(length: int, rules: Rules, seed: int, games: int = 3,
               max_steps: int = 200_000, check: object = None) -> Referee:
    """Play a match (or ``games`` money games) between two random players; return the referee.

    ``check``, when given, is called with every state reached.
    """
    ref = Referee(length, rules, seed=seed)
    players = (RandomPlayer(seed * 2 + 1), RandomPlayer(seed * 2 + 2))
    for _ in range(max_steps):
        s: MatchState = ref.state
        if callable(check):
            check(s)
        if s.game_state in (GameState.OVER, GameState.RESIGNED, GameState.DROPPED):
            if s.match_over or (length == 0 and s.game_number + 1 >= games):
                return ref
            ref.next_game()
            continue
        players[s.player_to_act].step(ref)
    raise AssertionError(f"match did not finish in {max_steps} steps")
