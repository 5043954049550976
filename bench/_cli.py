"""bench/_cli.py - the command line that bench/'s Python scripts share.

A script's --help prints its whole docstring (its usage, inputs, outputs and
the command that made its results), exit 0. A bad option or a wrong count of
arguments prints the docstring's usage lines to stderr, exit 2. A module the
script needs and cannot import (torch, NumPy, the streamlab package) is named
with where it comes from, exit 2. All of this happens before the script does
any work, so none of it ends in a traceback or a half-written file.

    import _cli                       # bench/ is sys.path[0] for `python3 bench/x.py`
    ap = _cli.parser(__doc__)         # argparse, the docstring as --help's text
    args = _cli.positional(__doc__, 2, 3)           # scripts that read sys.argv
    _cli.need(("torch", "streamlab"), "pip install . (and torch)")
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import List, Optional, Sequence


def _prog() -> str:
    return "bench/" + os.path.basename(sys.argv[0] or "script")


def usage_lines(doc: str) -> str:
    """The docstring's lines that say how to call it (those naming "usage"
    and the indented or `python3` lines right after), else its first line."""
    lines = doc.strip().splitlines()
    out: List[str] = []
    for i, line in enumerate(lines):
        if "usage" in line.lower():
            out.append(line)
            for nxt in lines[i + 1:]:
                if not nxt.strip() or not (nxt.startswith(" ") or nxt.lstrip().startswith("python3")):
                    break
                out.append(nxt)
        elif line.lstrip().startswith("python3 bench/") and line not in out:
            out.append(line)
    return "\n".join(out) if out else lines[0]


def parser(doc: str, prog: Optional[str] = None) -> argparse.ArgumentParser:
    """An ArgumentParser whose --help prints the docstring as written
    (argparse itself exits 2 on a bad option, with the usage)."""
    return argparse.ArgumentParser(prog=prog or _prog(), description=doc,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)


def positional(doc: str, least: int, most: int, argv: Optional[Sequence[str]] = None,
               options: Sequence[str] = ()) -> List[str]:
    """sys.argv[1:] (or argv) as least..most arguments: -h / --help prints the
    docstring (exit 0); an option other than one of `options` first (a mode,
    counted as an argument), or too few or too many arguments, prints the
    usage to stderr (exit 2)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if "-h" in args or "--help" in args:
        print(doc.strip())
        sys.exit(0)
    bad = [a for i, a in enumerate(args) if a.startswith("-") and a != "-" and not (i == 0 and a in options)]
    if bad or not least <= len(args) <= most:
        want = str(least) if least == most else f"{least} to {most}"
        why = f"unknown option {bad[0]}" if bad else f"{len(args)} arguments given, {want} expected"
        use = usage_lines(doc)
        use = use if "usage" in use.lower() else "usage:\n" + use
        print(f"{_prog()}: {why}\n{use}\n(--help says more)", file=sys.stderr)
        sys.exit(2)
    return args


def need(modules: Sequence[str], hint: str) -> None:
    """Exit 2 with a message naming the first of `modules` that does not
    import, and `hint` (where it comes from)."""
    for m in modules:
        try:
            importlib.import_module(m)
        except ImportError as e:
            print(f"{_prog()}: needs the Python module '{m}', which does not import here ({e}); {hint}",
                  file=sys.stderr)
            sys.exit(2)
