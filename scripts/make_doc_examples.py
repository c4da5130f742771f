"""Regenerate the command examples of the README and docs/ from the shipped networks.

Every fenced block whose first line is ``$ gbot ...`` (a command that answers and exits: not
``serve``, ``web``, ``ubgi``, ``fibs``, ``play``) is run with the checkout's ``gbot`` and its
output replaces the rest of the block. ``--check`` only reports the blocks that are out of
date (exit status 1 when any is).

    python scripts/make_doc_examples.py            # rewrite README.md and docs/*.md
    python scripts/make_doc_examples.py --check
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INTERACTIVE = {"serve", "web", "ubgi", "fibs", "play", "tournament", "train"}
BLOCK = re.compile(r"^```[^\n]*\n(\$ gbot [^\n]*)\n(.*?)^```", re.M | re.S)


def run_example(command: str) -> str:
    """The output of one ``$ gbot ...`` line, run with this interpreter's ``gbot``."""
    args = shlex.split(command[2:])
    done = subprocess.run([sys.executable, "-m", "gbot.cli", *args[1:]], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    return done.stdout if done.stdout.endswith("\n") or not done.stdout else done.stdout + "\n"


def refresh(path: Path, check: bool) -> list[str]:
    """Rewrite (or with ``check`` only compare) the examples of one file; the commands whose
    output differs."""
    text = path.read_text()
    stale: list[str] = []

    def replace(m: re.Match[str]) -> str:
        body = m.group(1) + "\n" + m.group(2)
        parts = re.split(r"^(\$ gbot [^\n]*)\n", body, flags=re.M)[1:]
        out = []
        for command, old in zip(parts[::2], parts[1::2], strict=True):
            blank = "\n" if old.endswith("\n\n") else ""
            if shlex.split(command[2:])[1] in INTERACTIVE:
                out.append(f"{command}\n{old}")
                continue
            new = run_example(command) + blank
            if new != old:
                stale.append(command)
            out.append(f"{command}\n{new}")
        head = m.group(0)[: m.start(1) - m.start(0)]
        return head + "".join(out) + "```"

    updated = BLOCK.sub(replace, text)
    if not check and updated != text:
        path.write_text(updated)
    return stale


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="report stale examples, change nothing")
    ap.add_argument("files", nargs="*", type=Path,
                    default=[ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    args = ap.parse_args()
    stale_any = False
    for path in args.files:
        stale = refresh(path, args.check)
        for command in stale:
            stale_any = True
            print(f"{path.relative_to(ROOT)}: {'stale' if args.check else 'updated'}: {command}")
    return 1 if (args.check and stale_any) else 0


if __name__ == "__main__":
    raise SystemExit(main())
