"""A network set whose crashed network is narrower than the file's width, stored zero-padded
(as the shipped networks were until v14): for the tests of padding."""

from __future__ import annotations

from gbot.eval.net import Networks
from gbot.train.ensemble import pad_units

LIVE = 128
"""Live units of the padded crashed network."""


def padded_crashed() -> Networks:
    """The shipped networks with the crashed network cut to its first :data:`LIVE` units and
    zero-padded back to the common width."""
    shipped = Networks.default()
    c = shipped.nets["crashed"]
    narrow = {"w1": c["w1"][:, :LIVE], "b1": c["b1"][:LIVE], "w2": c["w2"][:LIVE], "b2": c["b2"]}
    return Networks({**shipped.nets, "crashed": pad_units(narrow, shipped.hidden)},
                    shipped.activation, shipped.class_net)
