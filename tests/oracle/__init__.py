"""Slow, obviously-correct reference implementations used as oracles by the tests."""
