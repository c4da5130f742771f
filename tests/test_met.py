"""Match equity tables: the shipped Kazaross-XG2 table, lookups, conversions, the generator."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from gbot.cube.met import (
    MatchEquityTable,
    default_table,
    equity_to_mwc,
    mwc_to_equity,
)
from gbot.cube.metgen import generate
from gbot.errors import MatchEquityError

GNUBG_XML = Path("/usr/share/gnubg/met/Kazaross-XG2.xml")


def test_shipped_table_is_kazaross_xg2() -> None:
    t = default_table()
    assert t.length == 25
    assert "Kazaross" in t.name and "Kazaross" in t.source
    # Spot values of the published table (pre-Crawford row/column = away - 1).
    assert t.pre[0, 1] == pytest.approx(0.67736)     # 1-away (Crawford) vs 2-away
    assert t.pre[1, 2] == pytest.approx(0.59947)     # 2-away vs 3-away
    assert t.pre[4, 6] == pytest.approx(0.62638)     # 5-away vs 7-away
    assert t.post[1] == pytest.approx(0.48803)       # trailer 2-away post-Crawford
    assert t.post[2] == pytest.approx(0.32264)


def test_shipped_table_matches_gnubg_xml() -> None:
    if not GNUBG_XML.exists():
        pytest.skip("gnubg-data's Kazaross-XG2.xml is not installed")
    root = ET.parse(GNUBG_XML).getroot()
    pre_el = root.find("pre-crawford-table")
    post_el = root.find("post-crawford-table")
    assert pre_el is not None and post_el is not None
    pre = [[float(m.text or "") for m in row.findall("me")] for row in pre_el.findall("row")]
    post = [float(m.text or "") for m in post_el.findall("row")[0].findall("me")]
    t = default_table()
    assert np.array_equal(t.pre, np.array(pre))
    assert np.array_equal(t.post, np.array(post))


def test_table_identities() -> None:
    t = default_table()
    assert np.allclose(t.pre + t.pre.T, 1.0)
    assert np.allclose(np.diag(t.pre), 0.5)
    # Nearer the goal is better, the opponent nearer is worse.
    assert np.all(np.diff(t.pre, axis=0) < 0)
    assert np.all(np.diff(t.pre, axis=1) > 0)
    assert np.all(np.diff(t.post[1:]) < 0)


def test_lookups() -> None:
    t = default_table()
    assert t.mwc(0, 3) == 1.0
    assert t.mwc(4, -1) == 0.0
    assert t.mwc(3, 5) == pytest.approx(t.pre[2, 4])
    # 1-away: the Crawford game before it is played, the post-Crawford table after.
    assert t.mwc(1, 4) == pytest.approx(0.81436)
    assert t.mwc(1, 4, post_crawford=True) == pytest.approx(1 - 0.31002)
    assert t.mwc(4, 1, post_crawford=True) == pytest.approx(0.31002)
    assert t.mwc(1, 1, post_crawford=True) == pytest.approx(0.5)
    with pytest.raises(MatchEquityError, match="both"):
        t.mwc(0, 0)


def test_beyond_the_table() -> None:
    t = default_table()
    assert t.mwc(30, 30) == pytest.approx(0.5)
    vals = [t.mwc(a, 30) for a in range(26, 40)]
    assert all(0 < v < 1 for v in vals)
    assert all(a > b for a, b in zip(vals, vals[1:], strict=False))
    # Continuous with the table's edge.
    assert abs(t.mwc(26, 25) - t.mwc(25, 24)) < 0.01
    assert 0 < t.mwc(1, 40, post_crawford=True) < 1


def test_equity_conversions() -> None:
    # gnubg 1.07, 7-point match, 5-away vs 3-away, centred cube: no double 35.87719 % MWC is
    # shown as +0.189632 normalised equity; winning or losing the 1-cube gives 4-away/3-away
    # or 5-away/2-away.
    t = default_table()
    win, lose = t.mwc(4, 3), t.mwc(5, 2)
    assert mwc_to_equity(0.3587719, win, lose) == pytest.approx(0.189632, abs=2e-5)
    assert mwc_to_equity(win, win, lose) == pytest.approx(1.0)
    assert mwc_to_equity(lose, win, lose) == pytest.approx(-1.0)
    for e in (-1.3, -0.2, 0.0, 0.7, 2.0):
        assert mwc_to_equity(equity_to_mwc(e, win, lose), win, lose) == pytest.approx(e)
    with pytest.raises(MatchEquityError):
        mwc_to_equity(0.5, 0.6, 0.6)


def test_json_round_trip(tmp_path: Path) -> None:
    t = default_table()
    p = tmp_path / "met.json"
    p.write_text(t.to_json())
    u = MatchEquityTable.load(p)
    assert np.array_equal(u.pre, t.pre) and np.array_equal(u.post, t.post)
    assert u.name == t.name
    with pytest.raises(MatchEquityError, match="not a gbot"):
        MatchEquityTable.from_json(json.dumps({"pre": 1}))
    bad = json.loads(t.to_json())
    bad["pre_crawford"][0][1] = 0.9
    with pytest.raises(MatchEquityError, match="antisymmetric"):
        MatchEquityTable.from_json(json.dumps(bad))


def test_generator_close_to_kazaross() -> None:
    """Our generator from gammon rates against the rollout-based table: within 0.02 MWC."""
    t = default_table()
    g = generate(25)
    diff = np.abs(g.pre - t.pre)
    assert diff.max() < 0.02
    assert diff.mean() < 0.004
    assert np.abs(g.post - t.post).max() < 0.01
    assert np.allclose(g.pre + g.pre.T, 1.0)
    assert np.allclose(np.diag(g.pre), 0.5)


def test_generator_formulas() -> None:
    # Without gammons the Crawford game leader at 1-away/2-away wins 50 % at once and half of
    # the rest (1-away/1-away after the Crawford game): 75 %.
    g = generate(5, crawford_gammon_rate=0.0, post_gammon_rate=0.0, free_drop_2=0.0,
                 free_drop_4=0.0)
    assert g.mwc(1, 2) == pytest.approx(0.75)
    # Post-Crawford without gammons: the trailer 3-away must win two doubled games... or one
    # doubled game to reach 1-away/1-away: 0.5 * 0.5.
    assert g.mwc(3, 1, post_crawford=True) == pytest.approx(0.25)
    # More gammons help the Crawford-game trailer.
    g2 = generate(5, crawford_gammon_rate=0.4)
    assert g2.mwc(1, 2) < generate(5, crawford_gammon_rate=0.2).mwc(1, 2)
    with pytest.raises(MatchEquityError):
        generate(1)
