"""The game: positions and plays, the match and its rules, the referee, the starting
positions of each variation, and the text forms of all of them (:mod:`gbot.game.notations`)."""
