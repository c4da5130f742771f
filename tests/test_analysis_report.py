"""The HTML report of ``gbot analyse --html``: its structure for a real match (a board, the
candidates or cube figures and both IDs per decision, forced plays folded, the plot's games),
that it is self-contained, the board drawing, and the page in headless Chromium."""

from __future__ import annotations

import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from gbot.analysis.analyse import Analysis, analyse, read_match
from gbot.analysis.report import board_svg, html_report, pips, summary_rows
from tests.browser import headless_chromium

DATA = Path(__file__).parent / "data"
VOID = {"meta", "input", "br", "hr", "img", "link", "circle", "rect", "line", "polygon",
        "polyline", "path"}


class _Node:
    def __init__(self, tag: str, attrs: dict[str, str], parent: _Node | None) -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[_Node] = []
        self.text: list[str] = []

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def all_text(self) -> str:
        return "".join(self.text) + "".join(c.all_text() for c in self.children)

    def find(self, tag: str, cls: str | None = None) -> list[_Node]:
        out = []
        for c in self.children:
            if c.tag == tag and (cls is None or cls in c.classes):
                out.append(c)
            out += c.find(tag, cls)
        return out


class _Tree(HTMLParser):
    """A strict little DOM: every non-void element must be closed in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Node("#root", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = _Node(tag, {k: v or "" for k, v in attrs}, self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.cur.children.append(_Node(tag, {k: v or "" for k, v in attrs}, self.cur))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        assert self.cur.tag == tag, f"</{tag}> closes <{self.cur.tag}>"
        assert self.cur.parent is not None
        self.cur = self.cur.parent

    def handle_data(self, data: str) -> None:
        self.cur.text.append(data)


def _parse(page: str) -> _Node:
    t = _Tree()
    t.feed(page)
    t.close()
    assert t.cur is t.root, f"<{t.cur.tag}> left open"
    return t.root


@pytest.fixture(scope="module")
def match() -> Analysis:
    return analyse(read_match(str(DATA / "gnubg_3pt.mat")), ply=0)


@pytest.fixture(scope="module")
def page(match: Analysis) -> str:
    return html_report(match, source="gnubg_3pt.mat")


def _anchor(d: Any) -> str:
    return f"g{d.game + 1}-a{d.index}-{d.kind}"


def test_every_decision_has_its_board_figures_and_ids(match: Analysis, page: str) -> None:
    root = _parse(page)
    by_id = {}

    def walk(n: _Node) -> None:
        if "id" in n.attrs:
            by_id[n.attrs["id"]] = n
        for c in n.children:
            walk(c)

    walk(root)
    forced = unforced = 0
    for d in match.decisions:
        block = by_id[_anchor(d)]
        text = block.all_text()
        if d.kind == "move" and d.forced:
            forced += 1
            assert block.tag == "p" and "forced" in block.classes
            assert not block.find("svg") and not block.find("table")
            assert ("cannot move" if d.legal_plays == 0 else f"forced: {d.played}") in text
            continue
        unforced += 1
        assert len(block.find("svg", "board")) == 1
        assert d.position_id in text and d.match_id in text
        assert block.find("code", "pid")[0].all_text() == d.position_id
        assert block.find("code", "mid")[0].all_text() == d.match_id
        if d.kind == "move":
            (table,) = block.find("table", "cands")
            rows = [r for r in table.find("tr") if r.find("td")]
            listed = [r for r in rows if "gap" not in r.classes]
            assert len(listed) >= min(5, d.legal_plays)
            played = [r for r in listed if "played" in r.classes]
            assert len(played) == 1 and d.played in played[0].all_text()
            assert re.search(r"\d\.\d{3} \d\.\d{3} \d\.\d{3}", table.all_text())   # probabilities
        else:
            (table,) = block.find("table", "cube")
            assert [r.find("td")[0].all_text() for r in table.find("tr") if r.find("td")] == [
                "1. No double", "2. Double, take", "3. Double, pass"]
            assert "Proper cube action" in text
        if d.mark:
            assert "marked" in block.classes and d.mark in text
    assert forced >= 5 and unforced == len(page.split('<svg class="board"')) - 1
    assert forced == sum(d.kind == "move" and d.forced for d in match.decisions)


def test_the_page_is_self_contained_and_games_count_from_one(match: Analysis,
                                                             page: str) -> None:
    assert page.startswith("<!doctype html>")
    for outside in ("<link", "<img", " src=", "url(", "@import", "href=\"http", "href='http"):
        assert outside not in page
    root = _parse(page)
    titles = [h.all_text() for h in root.find("h2")]
    assert [t.split(" ·")[0] for t in titles if t.startswith("Game")] == [
        "Game 1", "Game 2", "Game 3"]
    # the plot: one line per game, a mark where each starts, each error dotted and linked
    (plot,) = root.find("svg", "plot")
    assert len(plot.find("polyline", "game-line")) == match.games
    assert len(plot.find("line", "game-start")) == match.games
    marked = [d for d in match.decisions if d.kind == "move" and d.mark]
    links = [a.attrs["href"] for a in plot.find("a")]
    assert links == [f"#{_anchor(d)}" for d in marked]
    # the summary's figures, PR among them
    labels = [r[0] for r in summary_rows(match)]
    assert "PR" in labels and "missed / wrong doubles" in labels
    for label in labels:
        assert label in page


def test_names_are_escaped(match: Analysis) -> None:
    bad = replace(match, names=("<script>x</script>", "a&b"))
    page = html_report(bad)
    assert "<script>x" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
    _parse(page)


def _circles(svg: str, colour: str) -> int:
    return len(re.findall(rf'<circle [^>]*fill="{colour}"', svg))


def test_board_draws_every_checker_the_bar_the_tray_dice_and_cube() -> None:
    from gbot.analysis import report

    light, dark = report._COLOURS
    start = board_svg("4HPwATDgc/ABMA", 0, dice=(3, 1))
    assert _circles(start, light) == 15 and _circles(start, dark) == 15
    assert ">64<" in start                         # the centred cube
    assert start.count("<rect") >= 4 + 2            # frame, two halves, the dice
    # player 1 to act: its numbering (its 1-point is player 0's 24-point, top right)
    labels = re.findall(r'font-size="10" fill="#555">(\d+)<', board_svg("4HPwATDgc/ABMA", 1))
    assert labels[:3] == ["24", "23", "22"]
    # 7 checkers on one point: five drawn, the count on the last; 2 on the bar, 6 off
    import gbot

    b = gbot.Position.initial().board.copy()
    b[6], b[8], b[13], b[25] = 7, 0, 0, 2
    b[24] = 0
    pid = gbot.Position(b).id()
    svg = board_svg(pid, 0, cube_value=4, cube_owner=1)
    assert ">7<" in svg and ">4<" in svg
    assert _circles(svg, light) == 5 + 2
    off = svg.count(f'height="5" fill="{light}"')
    assert off == 15 - 7 - 2
    assert pips(pid, 0) == (7 * 6 + 2 * 25, 167)


def test_the_report_in_headless_chromium(page: str, tmp_path: Path) -> None:
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    with headless_chromium(1200, 1000) as drv:
        from selenium.webdriver.common.by import By

        drv.get(path.as_uri())
        boards = drv.find_elements(By.CSS_SELECTOR, "svg.board")
        assert boards and all(b.size["width"] > 300 and b.size["height"] > 250
                              for b in boards[:5])
        blocks = drv.find_elements(By.CSS_SELECTOR, ".dec")
        shown = [b for b in blocks if b.is_displayed()]
        assert len(shown) == len(blocks)
        first = drv.find_element(By.CSS_SELECTOR, "div.dec.move")
        first.screenshot(str(tmp_path / "decision.png"))
        drv.find_element(By.ID, "only-marked").click()
        shown = [b for b in blocks if b.is_displayed()]
        assert shown and all("marked" in (b.get_attribute("class") or "") for b in shown)
        assert (tmp_path / "decision.png").stat().st_size > 5000
