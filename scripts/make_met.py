"""Convert a GNU Backgammon match equity table (XML) into gbot's JSON format, once.

Usage::

    python3 scripts/make_met.py [SOURCE.xml] [gbot/data/met_kazaross_xg2.json]

The source defaults to /usr/share/gnubg/met/Kazaross-XG2.xml.

gnubg's XML holds the pre-Crawford table as rows of ``<me>`` values (row ``i``, column ``j``:
match winning chance of the player ``i + 1`` away against an opponent ``j + 1`` away; the
1-away row is the Crawford game) and a post-Crawford row (value ``j``: winning chance of the
trailer ``j + 1`` away against the 1-away leader after the Crawford game). Only those numbers are
carried over; our file says where they came from.
"""

from __future__ import annotations

import argparse
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

DEFAULT_XML = Path("/usr/share/gnubg/met/Kazaross-XG2.xml")
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "gbot" / "data" / "met_kazaross_xg2.json"


def _rows(table: ET.Element) -> list[list[float]]:
    return [[float(me.text or "nan") for me in row.findall("me")] for row in table.findall("row")]


def convert(xml_path: Path) -> dict[str, object]:
    """The table in gbot's format (a JSON-ready dict)."""
    # The file starts with a DOCTYPE naming a DTD; ElementTree does not fetch it.
    root = ET.parse(xml_path).getroot()
    info = root.find("info")
    if info is None:
        raise ValueError(f"no <info> in {xml_path!r}")
    pre_el = root.find("pre-crawford-table")
    post_els = root.findall("post-crawford-table")
    if pre_el is None or pre_el.get("type") != "explicit" or not post_els:
        raise ValueError(f"{xml_path!r} is not an explicit table")
    pre = _rows(pre_el)
    post_rows = _rows(post_els[0])
    if len(post_els) > 1 or post_els[0].get("player") not in (None, "both"):
        raise ValueError(f"{xml_path!r}: only one post-Crawford table for both players is handled")
    n = len(pre)
    if any(len(r) != n for r in pre) or len(post_rows) != 1 or len(post_rows[0]) != n:
        raise ValueError(f"{xml_path!r}: table is not {n} x {n} with a {n}-long post row")
    worst = max(abs(pre[i][j] + pre[j][i] - 1.0) for i in range(n) for j in range(n))
    if worst > 1e-6:
        raise ValueError(f"{xml_path!r}: table is not antisymmetric (off by {worst})")
    return {
        "format": "gbot-met-1",
        "name": (info.findtext("name") or "").strip(),
        "description": (info.findtext("description") or "").strip(),
        "source": (
            "Kazaross-XG2 match equity table (Neil Kazaross, 2011: XG rollouts to 9 points, "
            "GNU Backgammon rollouts to 15, extrapolated to 25), numbers read from GNU "
            f"Backgammon's data file {xml_path.name} (Debian package gnubg-data)"),
        "length": n,
        "pre_crawford": pre,
        "pre_crawford_doc": "pre_crawford[i][j]: winning chance of the player i+1 away against "
                            "an opponent j+1 away; the 1-away row and column are the Crawford game",
        "post_crawford": post_rows[0],
        "post_crawford_doc": "post_crawford[j]: winning chance of the trailer j+1 away against "
                             "the 1-away leader in a post-Crawford game",
    }


def _dumps(data: dict[str, object]) -> str:
    """JSON with one table row per line."""
    lines = ["{"]
    items = list(data.items())
    for k, (key, value) in enumerate(items):
        sep = "," if k < len(items) - 1 else ""
        if key == "pre_crawford":
            rows = [json.dumps(r) for r in value]  # type: ignore[attr-defined]
            lines.append(f' "{key}": [')
            lines += [f"  {r}," for r in rows[:-1]] + [f"  {rows[-1]}", f" ]{sep}"]
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}{sep}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", nargs="?", type=Path, default=DEFAULT_XML,
                    help=f"gnubg's XML table (default {DEFAULT_XML})")
    ap.add_argument("out", nargs="?", type=Path, default=DEFAULT_OUT,
                    help="gbot's JSON table (default gbot/data/met_kazaross_xg2.json)")
    args = ap.parse_args(argv[1:])
    src, out = args.source, args.out
    data = convert(src)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(_dumps(data))
    print(f"wrote {out} ({data['length']} points) from {src}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
