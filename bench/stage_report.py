#!/usr/bin/env python3
"""stage_report.py - one bench/device.sh stage's folder as PREFIX.md and PREFIX.json.

    python3 bench/stage_report.py --dir /tmp/sl-device/softmax --stage softmax --rc 0 --seconds 212 \\
        --command "STAGES=softmax bash bench/device.sh" --gpu "NVIDIA H200" --commit abc1234 \\
        --device-info /tmp/sl-device/device.txt --out bench-out/h200-softmax-2026-11-26

Reads DIR/commands.txt (every command the stage ran, one a line, as
bench/device.sh's x() recorded them) and DIR/stage.log (its output), lists the
files under DIR, and writes
  OUT.md    a header with the command, the commands inside, GPU, commit,
            exit status and seconds, the files, and the last --tail lines of
            the output;
  OUT.json  the same fields, plus "results": every JSON file under DIR,
            parsed, by its path relative to DIR, while they fit in --max-bytes
            (the rest are named in "results_left_out").
Exit 0; 2 on bad usage or a missing DIR.
"""
import json
import os
import sys

import _cli


def main(argv=None):
    ap = _cli.parser(__doc__)
    ap.add_argument("--dir", required=True, help="the stage's folder (commands.txt, stage.log, its files)")
    ap.add_argument("--stage", required=True, help="the stage's name")
    ap.add_argument("--rc", type=int, required=True, help="the stage's exit status")
    ap.add_argument("--seconds", type=int, default=0, help="how long the stage ran")
    ap.add_argument("--command", required=True, help="the command that ran the stage")
    ap.add_argument("--gpu", default="", help="the GPU's name")
    ap.add_argument("--commit", default="", help="the tree's commit")
    ap.add_argument("--device-info", default="", metavar="FILE", help="a file of device facts to quote")
    ap.add_argument("--out", required=True, help="path without .md / .json")
    ap.add_argument("--tail", type=int, default=80, help="lines of the output quoted (default: %(default)s)")
    ap.add_argument("--max-bytes", type=int, default=4 << 20,
                    help="the JSON files' size held in OUT.json, at most (default: %(default)s)")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.dir):
        print("stage_report.py: no folder %s" % a.dir, file=sys.stderr)
        return 2

    def read(path):
        try:
            with open(path, errors="replace") as f:
                return f.read()
        except OSError:
            return ""
    commands = [c for c in read(os.path.join(a.dir, "commands.txt")).splitlines() if c.strip()]
    log = read(os.path.join(a.dir, "stage.log")).splitlines()
    device = read(a.device_info).strip() if a.device_info else ""
    files = []
    for root, _, names in os.walk(a.dir):
        for n in sorted(names):
            p = os.path.join(root, n)
            files.append((os.path.relpath(p, a.dir), os.path.getsize(p)))
    files.sort()
    results, left, used = {}, [], 0
    for rel, size in files:
        if not rel.endswith(".json"):
            continue
        if used + size > a.max_bytes:
            left.append(rel)
            continue
        try:
            with open(os.path.join(a.dir, rel)) as f:
                results[rel] = json.load(f)
            used += size
        except (OSError, ValueError) as e:
            left.append("%s (%s)" % (rel, e.__class__.__name__))
    doc = {"schema": "streamlab.device-stage/1", "stage": a.stage, "command": a.command, "commands": commands,
           "gpu": a.gpu, "device": device, "commit": a.commit, "exit": a.rc, "seconds": a.seconds,
           "files": [{"path": r, "bytes": s} for r, s in files], "results": results,
           "results_left_out": left}
    with open(a.out + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    md = ["# %s on %s (bench/device.sh stage `%s`)" % (a.stage, a.gpu or "no GPU", a.stage), "",
          "Command (from the repository root, through the device tool):", "",
          "    " + a.command, "",
          "Exit %d after %d s; commit %s. The commands the stage ran:" % (a.rc, a.seconds, a.commit or "unknown"), ""]
    md += ["    " + c for c in commands] or ["    (none recorded)"]
    if device:
        md += ["", "Device:", "", "```", device, "```"]
    md += ["", "Files (in device-out.tgz under %s/):" % a.stage, ""]
    md += ["- `%s` (%d bytes)" % (r, s) for r, s in files] or ["- (none)"]
    md += ["", "The last %d lines of its output:" % a.tail, "", "```"] + log[-a.tail:] + ["```", ""]
    with open(a.out + ".md", "w") as f:
        f.write("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
