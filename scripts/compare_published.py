#!/usr/bin/env python3
"""Read published match files with gnubg 1.07 and with gbot, and say where they differ.

For every ``.mat``, ``.txt``, ``.sgf`` and ``.xg`` file under FOLDER (its writer: the name of
the folder it lies in), gnubg imports it (``import mat``; ``load match`` for ``.sgf``; gnubg
1.07 reads no ``.xg``) and reports the number of games, the score before each and the final
score; gbot reads it as ``gbot analyse`` does (:func:`gbot.analysis.analyse.read_match`),
counting its warnings. A table, one row a file, then a summary line: the files gnubg read,
those gbot read, and those gbot reads with the same games (number and scores before each) and
the same final score as gnubg. Exit status 1 when a file gnubg reads is refused by gbot or
read with other games or another final score. Progress goes to stderr.

With --manifest FILE (JSON: a list of entries with ``file``, the path under FOLDER, and
``sha256`` of its text) each entry's ``gnubg`` and ``gbot`` readings are written back into
it; an entry whose file is missing or whose text has changed stops the run.

    python scripts/compare_published.py /tmp/published --manifest tests/data/published_manifest.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import benchlib

from gbot.analysis.analyse import read_match
from gbot.errors import GbotError
from gbot.records.matfile import MatchFileWarning

SUFFIXES = (".mat", ".txt", ".sgf", ".xg")


@dataclass
class Reading:
    """One program's reading of one file: whether it read a match, its length, per game the
    score before it, the final score, and (gbot) its warnings or (both) why it read none."""

    read: bool
    length: int = 0
    scores: list[tuple[int, int]] = field(default_factory=list)
    final: tuple[int, int] = (0, 0)
    warnings: list[str] = field(default_factory=list)
    why: str = ""

    def facts(self) -> dict[str, Any]:
        """The reading as JSON-ready facts (no file content beyond gbot's warnings' lines)."""
        if not self.read:
            return {"read": False, "why": self.why}
        out: dict[str, Any] = {"read": True, "length": self.length, "games": len(self.scores),
                               "final": list(self.final)}
        if self.warnings:
            out["warnings"] = len(self.warnings)
        return out


def gbot_reading(path: Path) -> Reading:
    """gbot's reading of ``path``, as ``gbot analyse`` reads it, with the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            rec = read_match(str(path))
        except GbotError as exc:
            return Reading(False, why=str(exc))
    said = [f"{w.lineno}: {w.message}" for w in caught
            if isinstance(w.message, MatchFileWarning)]
    return Reading(True, rec.match_length, [g.score for g in rec.games], rec.final_score, said)


def gnubg_readings(paths: list[Path]) -> list[Reading]:
    """gnubg 1.07's reading of each file (one gnubg process for them all)."""
    out = []
    for view in benchlib.gnubg_harness().read_matches(paths):
        if not view.read:
            out.append(Reading(False, why=view.why))
            continue
        out.append(Reading(True, view.length, [s for s, _, _ in view.games], view.final_score))
    return out


def verdict(gnubg: Reading, gbot: Reading) -> str:
    """'same', or what differs, for a file gnubg read; '-' for one it did not."""
    if not gnubg.read:
        return "-"
    if not gbot.read:
        return "gbot refuses"
    wrong = []
    if gbot.length != gnubg.length:
        wrong.append("length")
    if gbot.scores != gnubg.scores:
        wrong.append("games")
    if gbot.final != gnubg.final:
        wrong.append("final score")
    return "same" if not wrong else "differs: " + ", ".join(wrong)


def _cell(r: Reading) -> str:
    if not r.read:
        return "not read"
    return f"{len(r.scores):>2} games {r.final[0]:>2}-{r.final[1]:<2}"


def main(argv: list[str] | None = None) -> int:
    """Command line: compare, print the table and the summary; 1 on a difference."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path, help="the files, one folder per writer")
    ap.add_argument("--manifest", type=Path, help="write the readings into this manifest")
    ap.add_argument("--verbose", action="store_true",
                    help="print gbot's warnings and why a file was not read")
    args = ap.parse_args(argv)

    paths = sorted(p for p in args.folder.rglob("*")
                   if p.is_file() and p.suffix.lower() in SUFFIXES)
    if not paths:
        ap.error(f"no match files under {args.folder}")
    manifest: list[dict[str, Any]] | None = None
    if args.manifest is not None:
        manifest = json.loads(args.manifest.read_text())
        for entry in manifest:
            p = args.folder / entry["file"]
            if not p.is_file():
                ap.error(f"{p}: in the manifest, not in {args.folder}")
            if hashlib.sha256(p.read_bytes()).hexdigest() != entry["sha256"]:
                ap.error(f"{p}: its text is not the one the manifest names (sha256)")

    t0 = time.monotonic()
    print(f"gnubg 1.07 reads {len(paths)} files ...", file=sys.stderr)
    theirs = gnubg_readings(paths)
    ours = []
    for i, p in enumerate(paths, 1):
        print(f"gbot reads {i}/{len(paths)} {p.relative_to(args.folder)}", file=sys.stderr)
        ours.append(gbot_reading(p))
    print(f"read in {time.monotonic() - t0:.1f} s", file=sys.stderr)

    width = max(len(str(p.relative_to(args.folder))) for p in paths)
    print(f"{'file':<{width}}  {'gnubg 1.07':<17}  {'gbot':<17}  warn  verdict")
    counts = {"gnubg": 0, "gbot": 0, "same": 0}
    for p, g, b in zip(paths, theirs, ours, strict=True):
        v = verdict(g, b)
        counts["gnubg"] += g.read
        counts["gbot"] += b.read
        counts["same"] += v == "same"
        print(f"{str(p.relative_to(args.folder)):<{width}}  {_cell(g):<17}  {_cell(b):<17}  "
              f"{len(b.warnings):>4}  {v}")
        if args.verbose:
            for line in ([f"gnubg: {g.why}"] if not g.read else []) + (
                    [f"gbot: {b.why}"] if not b.read else [f"gbot warns {w}" for w in b.warnings]):
                print(f"    {line}")
    writers = sorted({p.relative_to(args.folder).parts[0] for p in paths})
    print(f"{len(paths)} files from {len(writers)} writers; gnubg 1.07 read {counts['gnubg']}, "
          f"gbot read {counts['gbot']}; of the {counts['gnubg']} gnubg read, gbot reads "
          f"{counts['same']} with the same games and final score")

    if manifest is not None and args.manifest is not None:
        by_file = {str(p.relative_to(args.folder)): (g, b)
                   for p, g, b in zip(paths, theirs, ours, strict=True)}
        for entry in manifest:
            g, b = by_file[entry["file"]]
            entry["gnubg"], entry["gbot"] = g.facts(), b.facts()
            entry["verdict"] = verdict(g, b)
        args.manifest.write_text(json.dumps(manifest, indent=1) + "\n")
    return 0 if counts["same"] == counts["gnubg"] else 1


if __name__ == "__main__":
    sys.exit(main())
