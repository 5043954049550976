#!/usr/bin/env python3
"""Join the per-group files of bench/row_peers_h200.sh into one results file.

    python3 bench/row_peers_merge.py --intro intro.md --md out.md --json out.json \
        DIR/row-peers-fwd.json DIR/row-peers-bwd.json ...

The JSON is {group: that group's record}, the group named from the file
(row-peers-<group>.json). The Markdown is the intro (the device, the calls,
what the figures say), then per group its command and the table its .md
beside the .json holds (row_peers.py's write_md), without that file's
header. Every number comes from the group files; nothing is recomputed.
"""
import json
import os
import sys
from typing import Dict, List

import _cli


def group_name(path: str) -> str:
    base = os.path.basename(path)
    if not (base.startswith("row-peers-") and base.endswith(".json")):
        raise SystemExit("row_peers_merge: %s is not a row-peers-<group>.json file" % path)
    return base[len("row-peers-"):-len(".json")]


def table_of(md_path: str) -> List[str]:
    """The group's tables: from its first table row on."""
    with open(md_path) as fh:
        lines = fh.read().splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith("|")), len(lines))
    return lines[start:]


def main(argv=None) -> int:
    ap = _cli.parser(__doc__)
    ap.add_argument("--intro", required=True, metavar="FILE", help="Markdown to put first")
    ap.add_argument("--md", required=True, metavar="FILE", help="write the joined Markdown here")
    ap.add_argument("--json", required=True, metavar="FILE", help="write the joined JSON here")
    ap.add_argument("groups", nargs="+", help="row-peers-<group>.json files, each with its .md beside it")
    a = ap.parse_args(argv)
    merged: Dict[str, dict] = {}
    with open(a.intro) as fh:
        out = fh.read().rstrip("\n").splitlines()
    for path in a.groups:
        name = group_name(path)
        if name in merged:
            raise SystemExit("row_peers_merge: group %s given twice" % name)
        with open(path) as fh:
            merged[name] = json.load(fh)
        out += ["", "## %s" % name, "", "Command: `%s`" % merged[name]["command"], ""]
        out += table_of(path[:-len(".json")] + ".md")
    with open(a.json, "w") as fh:
        json.dump(merged, fh, indent=1)
        fh.write("\n")
    with open(a.md, "w") as fh:
        fh.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
