#!/usr/bin/env python3
"""results_index.py - bench/results/README.md, generated from the results files.

    python3 bench/results_index.py            write bench/results/README.md
    python3 bench/results_index.py --check    exit 1 when README.md is not what this writes
    python3 bench/results_index.py --archive  move superseded, unreferenced results to archive/

Reads every bench/results/<gpu>-<what>-<date>[letter][-what].{md,json,html}
(and archive/) and writes one row per result (a name's .md, .json and other
files together): what it measures, the GPU, the date, the command that made
it and a headline ratio, the latest result of each "what" first and marked.

  GPU       the JSON's device name where it has one, else the file name's
            prefix (h200: one H200; h200x2: two)
  command   the JSON's "command" / "command_line" / first of "commands", else
            the first command line in the Markdown (an indented or fenced line
            starting with streamlab, bash, python3, run(, mpirun, STAGES= or
            an env assignment)
  headline  for a `streamlab run` JSON: the public function's (kind "api")
            time against the peer (x_peer: peer time / its time) and its
            %copy, at the largest size of each op and dtype (at most three);
            else the first ratio the Markdown states outside a line naming a
            bar or a target ("1.15 x BabelStream", "x torch: 1.48")
Superseded (--archive): not the latest of its "what" and named by no tracked
file outside bench/results/README.md (docs, README, tests, sources and the
other results keep their links); archive/ keeps them, and the index lists them.
Exit 0; 1 for --check when stale; 2 on bad usage.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any, Dict, List, Optional, Tuple

import _cli

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RESULTS = os.path.join(HERE, "results")
ARCHIVE = os.path.join(RESULTS, "archive")
NAME = re.compile(r"^(?P<gpu>[a-z0-9]+?(?:x\d+)?)-(?P<rest>.+)\.(?P<ext>md|json|html|txt)$")
DATE = re.compile(r"(\d{4}-\d{2}-\d{2})([a-z]?)")
PEERS = r"(CUB|cub|torch[\w.()]*|cuBLAS|cublas|BabelStream|copy|cuDNN|Liger|the copy|single)"
RATIO = [re.compile(r"(\d+\.\d+) ?x ?" + PEERS), re.compile(r"x ?" + PEERS + r"[:=* ]{1,4}(\d+\.\d+)")]


def parse_name(fn: str) -> Optional[Tuple[str, str, str, str]]:
    """(gpu prefix, what, date, date letter) or None when the name is not a result's."""
    m = NAME.match(fn)
    if not m:
        return None
    d = DATE.search(m.group("rest"))
    if not d:
        return None
    what = (m.group("rest")[:d.start()] + m.group("rest")[d.end():]).strip("-").replace("--", "-")
    return m.group("gpu"), what or "add", d.group(1), d.group(2)


def load_json(path: str) -> Any:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read(path: str) -> str:
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def gpu_of(prefix: str, js: Any) -> str:
    if isinstance(js, dict):
        devs = js.get("devices")
        if isinstance(devs, list) and devs and all(isinstance(d, dict) and d.get("name") for d in devs):
            return " + ".join(re.split(r"[,(]", d["name"])[0].strip().replace("NVIDIA ", "") for d in devs)
        for d in (js.get("gpu"), js.get("device")):
            if isinstance(d, dict):
                d = d.get("name")
            if isinstance(d, str) and d.strip() and not d.startswith("name,"):
                return re.split(r"[,(]", d.strip())[0].strip().replace("NVIDIA ", "")
    m = re.match(r"([a-z]+\d+)(?:x(\d+))?$", prefix)
    if m:
        return ("%s x " % m.group(2) if m.group(2) else "") + m.group(1).upper()
    return prefix


def command_of(js: Any, md: str) -> str:
    if isinstance(js, dict):
        for k in ("command", "command_line"):
            if isinstance(js.get(k), str) and js[k].strip():
                return js[k].strip()
        c = js.get("commands")
        if isinstance(c, list) and c:
            first = c[0]
            if isinstance(first, dict):
                first = first.get("command") or first.get("cmd") or ""
            if isinstance(first, str) and first.strip():
                return first.strip()
    start = re.compile(r"^\s*(?:\$ )?`?((?:streamlab|bash|python3|run\(|mpirun|STAGES=|[A-Z_]+=\S+ )\S*.*?)`?\s*$")
    for line in md.splitlines():
        if line.startswith("    ") or line.startswith("`") or line.startswith("$ "):
            m = start.match(line)
            if m:
                return m.group(1).strip()
    return ""


def run_headline(js: Dict[str, Any]) -> str:
    rows = [r for r in js.get("results", []) if isinstance(r, dict) and r.get("status") == "ok"]
    api = [r for r in rows if r.get("kind") == "api"]
    best: Dict[Tuple[str, str], Dict[str, Any]] = {}
    for r in api:
        key = (str(r.get("op", "")), str(r.get("dtype", "")))
        if key not in best or (r.get("bytes") or 0) >= (best[key].get("bytes") or 0):
            best[key] = r
    out = []
    for (op, dt), r in list(best.items())[:3]:
        peer = next((p.get("variant") for p in rows if p.get("kind") == "peer" and p.get("op") == r.get("op")
                     and p.get("dtype") == r.get("dtype") and p.get("bytes") == r.get("bytes")), None)
        bits = []
        if isinstance(r.get("x_peer"), (int, float)):
            bits.append("%.3f x %s" % (r["x_peer"], peer or "peer"))
        if isinstance(r.get("pct_copy"), (int, float)):
            bits.append("%.0f%% copy" % r["pct_copy"])
        if bits:
            out.append("%s %s: %s" % (r.get("variant"), dt, ", ".join(bits)))
    return "; ".join(out)


def md_headline(md: str) -> str:
    for line in md.splitlines():
        low = line.lower()
        if "bar" in low or "target" in low or ">=" in line or "\u2265" in line or line.startswith("    "):
            continue
        for rx in RATIO:
            m = rx.search(line)
            if m:
                return m.group(0).replace("*", "").strip(" )(.,;:")
    return ""


def entries(folder: str, archived: bool) -> List[Dict[str, Any]]:
    groups: Dict[Tuple[str, str, str, str], List[str]] = {}
    if not os.path.isdir(folder):
        return []
    for fn in sorted(os.listdir(folder)):
        p = parse_name(fn)
        if p and os.path.isfile(os.path.join(folder, fn)):
            groups.setdefault(p, []).append(fn)
    out = []
    for (prefix, what, date, letter), files in groups.items():
        base = lambda e: [f for f in files if f.endswith("." + e)]  # noqa: E731
        js = next((load_json(os.path.join(folder, f)) for f in base("json")), None)
        mdf = base("md")
        md = read(os.path.join(folder, mdf[0])) if mdf else ""
        title = next((ln[2:].strip() for ln in md.splitlines() if ln.startswith("# ")), "")
        head = run_headline(js) if isinstance(js, dict) and isinstance(js.get("results"), list) else ""
        if not head and isinstance(js, dict) and isinstance(js.get("rows"), list):
            ag = [r.get("aggregate_over_k_single") for r in js["rows"] if isinstance(r, dict)
                  and isinstance(r.get("aggregate_over_k_single"), (int, float))]
            if ag:
                head = "aggregate / (%s x single): %.3f to %.3f" % (js.get("ranks", "k"), min(ag), max(ag))
        out.append({"what": what, "gpu": gpu_of(prefix, js), "date": date + letter, "files": files,
                    "title": title, "command": command_of(js, md), "headline": head or md_headline(md),
                    "archived": archived})
    return out


def cell(s: str, n: int = 140) -> str:
    s = " ".join(s.split()).replace("|", "\\|")
    return s if len(s) <= n else s[: n - 3] + "..."


def render(rows: List[Dict[str, Any]]) -> str:
    live = [r for r in rows if not r["archived"]]
    latest = {}
    for r in live:
        if r["what"] not in latest or r["date"] > latest[r["what"]]:
            latest[r["what"]] = r["date"]
    out = ["# Results", "",
           "Generated by `python3 bench/results_index.py` from the files in this folder: do not edit by hand",
           "(a test, `results_index`, fails while this index is stale). Every file came back from a device",
           "machine through `bench/device.sh` or the script its command names; each file holds the command",
           "that made it. To re-measure one op: `STAGES=<op> bash bench/device.sh` (`--help` lists the",
           "stages). The latest result of each kind comes first and is marked **latest**; superseded results",
           "that nothing links to are in `archive/` (`python3 bench/results_index.py --archive`).", "",
           "Headline: for a `streamlab run` JSON, the public function against the peer (x peer = peer time /",
           "its time) and its %copy at the largest size; otherwise the first ratio the Markdown states",
           "outside a line naming a bar or target. Read the file for the full table.", "",
           "| what | date | GPU | files | what it is | command | headline |", "|---|---|---|---|---|---|---|"]
    order = sorted(live, key=lambda r: r["date"], reverse=True)
    order.sort(key=lambda r: (r["what"], r["date"] != latest[r["what"]]))
    for r in order:
        mark = " **latest**" if r["date"] == latest[r["what"]] else ""
        files = ", ".join("[%s](%s)" % (f[f.rfind("."):] if len(r["files"]) > 1 else f, f) for f in r["files"])
        out.append("| %s%s | %s | %s | %s | %s | %s | %s |" % (
            r["what"], mark, r["date"], cell(r["gpu"], 40), files, cell(r["title"], 90),
            ("`%s`" % cell(r["command"], 150)) if r["command"] else "-", cell(r["headline"], 90) or "-"))
    arch = [r for r in rows if r["archived"]]
    if arch:
        out += ["", "## archive/", "", "| what | date | GPU | files | what it is |", "|---|---|---|---|---|"]
        for r in sorted(arch, key=lambda r: (r["what"], r["date"])):
            files = ", ".join("[%s](archive/%s)" % (f, f) for f in r["files"])
            out.append("| %s | %s | %s | %s | %s |" % (r["what"], r["date"], cell(r["gpu"], 40), files,
                                                     cell(r["title"], 90)))
    extra = sorted(d for d in os.listdir(RESULTS) if os.path.isdir(os.path.join(RESULTS, d)) and d != "archive")
    if extra:
        out += ["", "Folders kept as they are: " + ", ".join("`%s/`" % d for d in extra) + "."]
    return "\n".join(out) + "\n"


def referenced(names: List[str]) -> Dict[str, bool]:
    """Which of the names some tracked file other than results/README.md (and the name's own files) mentions."""
    try:
        files = subprocess.run(["git", "-C", ROOT, "ls-files"], capture_output=True, text=True,
                               check=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        files = []
    texts = []
    for f in files:
        if not f or f == "bench/results/README.md" or f.endswith((".png", ".gz", ".tgz")):
            continue
        texts.append((os.path.basename(f), read(os.path.join(ROOT, f))))
    out = {}
    for n in names:
        stem = n.rsplit(".", 1)[0]
        out[n] = any(stem in t for fn, t in texts if fn.rsplit(".", 1)[0] != stem)
    return out


def main(argv: Optional[List[str]] = None) -> int:
    ap = _cli.parser(__doc__)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--check", action="store_true", help="exit 1 when README.md is not what this writes")
    g.add_argument("--archive", action="store_true", help="move superseded, unreferenced results to archive/")
    a = ap.parse_args(argv)
    rows = entries(RESULTS, False) + entries(ARCHIVE, True)
    if a.archive:
        live = [r for r in rows if not r["archived"]]
        latest = {}
        for r in live:
            latest[r["what"]] = max(latest.get(r["what"], ""), r["date"])
        cands = [r for r in live if r["date"] != latest[r["what"]]]
        refs = referenced([f for r in cands for f in r["files"]])
        os.makedirs(ARCHIVE, exist_ok=True)
        for r in cands:
            if any(refs[f] for f in r["files"]):
                continue
            for f in r["files"]:
                os.rename(os.path.join(RESULTS, f), os.path.join(ARCHIVE, f))
                print("archived %s" % f)
        rows = entries(RESULTS, False) + entries(ARCHIVE, True)
    text = render(rows)
    path = os.path.join(RESULTS, "README.md")
    if a.check:
        if read(path) != text:
            print("bench/results/README.md is stale: run python3 bench/results_index.py", file=sys.stderr)
            return 1
        print("bench/results/README.md is current (%d results)" % len(rows))
        return 0
    with open(path, "w") as f:
        f.write(text)
    print("wrote %s (%d results)" % (path, len(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
