#!/usr/bin/env python3
"""Keep a build directory incremental across device calls.

The device tool copies the working tree afresh for every call, so every
source file arrives with a new modification time, while an ignored build
directory at the repository root stays from the last call on a warm
machine. Ninja compares times, so every call rebuilt the whole library
(~175 s of device time for two checkouts, eleventh session).

Usage: keep_mtimes.py CHECKOUT BUILD_DIR   (before building BUILD_DIR)

Each file of CHECKOUT gets, as its modification time, the time at which
BUILD_DIR's record first saw its present content (SHA-1): an unchanged
file keeps the old time, so its objects stay up to date; a file whose
content is new to the record gets the present time, so everything built
from it is rebuilt. An object is never newer than a content it was not
built from, so a failed or partial build, a second build directory or a
file changed back are all rebuilt as they must be. The record is
BUILD_DIR/.sl-mtimes.json. KEEP_MTIMES=0 in the environment: do nothing.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import time

import _cli

# Not sources: build outputs, git data, carried peers and worktrees, results.
PRUNE = {".git", ".wt", ".deps", "bench-out", "__pycache__"}


def sources(root: str):
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs
                         if d not in PRUNE and not d.startswith(("build", ".peers")))
        for f in sorted(files):
            yield os.path.relpath(os.path.join(top, f), root)


def main() -> int:
    root, build = _cli.positional(__doc__, 2, 2)
    if os.environ.get("KEEP_MTIMES", "1") == "0":
        return 0
    if not os.path.isdir(root):
        print(f"keep_mtimes: {root}: not a folder", file=sys.stderr)
        return 2
    os.makedirs(build, exist_ok=True)
    rec_path = os.path.join(build, ".sl-mtimes.json")
    try:
        with open(rec_path) as fh:
            rec = json.load(fh)
    except (OSError, ValueError):
        rec = {}
    now = time.time()
    new: dict[str, list] = {}
    kept = 0
    for rel in sources(root):
        path = os.path.join(root, rel)
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        with open(path, "rb") as fh:
            digest = hashlib.sha1(fh.read()).hexdigest()
        old = rec.get(rel)
        if old and old[0] == digest:
            t = old[1]
            kept += 1
        else:
            t = now
        os.utime(path, (t, t))
        new[rel] = [digest, t]
    tmp = rec_path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(new, fh)
    os.replace(tmp, rec_path)
    print(f"keep_mtimes: {root} for {build}: {kept} of {len(new)} files unchanged since the record saw them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
