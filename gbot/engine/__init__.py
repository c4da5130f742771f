"""The decision engine every adapter asks (:mod:`gbot.engine.engine`), the hints it explains
its choices with, gnubg's one-call answers and the start-up warm-up."""
