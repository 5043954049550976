#!/usr/bin/env python3
"""Structural check of a `streamlab report` page, without a browser.

usage: check_report.py REPORT.html INPUT.json...

Independently of streamlab's C code, from the input files themselves, it
works out which figures the page must hold (one bandwidth-vs-size and one
ladder figure per run file, device, op and dtype with a verified row; one
roofline per GPU with a row that does flops; per profile, one figure per
probe curve present), then checks that the page holds exactly those, that
every figure's SVG parses as XML, that gnuplot drew the axis labels the
figure declares and that each label carries a unit in parentheses, that
no id repeats, and that nothing is loaded from elsewhere. Exits 1 with
every problem listed.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

# flops per element of each op, for "does a roofline point exist": copy
# does none; every other streaming op does at least one.
NO_FLOPS = {"copy"}


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.figures = []  # (attrs, start offset)
        self.meta = {}
        self.ids = []
        self.external = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "meta" and "name" in a:
            self.meta[a["name"]] = a.get("content", "")
        if tag == "figure" and "plot" in a.get("class", ""):
            self.figures.append(a)
        for k in ("src", "href", "xlink:href"):
            v = a.get(k)
            if v and not v.startswith("#"):
                self.external.append(f"<{tag} {k}={v!r}>")
        if tag == "link":
            self.external.append(f"<link {a}>")


def expected(inputs):
    """{section: count} the page must show, from the inputs alone."""
    want = {0: 0, 1: 0, 2: 0, 3: 0}
    gpus = set()
    for path in inputs:
        d = json.load(open(path))
        schema = d.get("schema", "")
        if schema.startswith("streamlab.run/"):
            devs = d.get("devices") or [d["device"]]
            cfg_op = d.get("config", {}).get("op", "add")  # the first runs name op and dtype in config only
            cfg_dt = d.get("config", {}).get("dtype", "f32")
            groups = set()
            for r in d["results"]:
                ok = r.get("status") == "ok" and (r.get("time_ms") or {}).get("median", 0) > 0 and r.get("bytes", 0) > 0
                if not ok:
                    continue
                di = r.get("device", 0)
                op = r.get("op", cfg_op)
                groups.add((di, op, r.get("dtype", cfg_dt)))
                dev = devs[di]
                if dev.get("backend") == "cuda" and op not in NO_FLOPS and r.get("kind") != "ceiling":
                    gpus.add(dev["name"])
            want[0] += len(groups)
            want[1] += len(groups)
        elif schema.startswith("streamlab.profile/"):
            pts = d.get("points", {})
            want[3] += sum(1 for k in ("latency", "bytes_in_flight", "offset", "stride", "bank_conflicts", "l1",
                                       "constant", "divergence") if pts.get(k))
        else:
            raise SystemExit(f"check_report: {path} is not a streamlab file")
    want[2] = len(gpus)
    return want


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    html_path, inputs = sys.argv[1], sys.argv[2:]
    text = open(html_path, encoding="utf-8").read()
    problems = []
    page = Page()
    page.feed(text)
    want = expected(inputs)
    got = {s: 0 for s in want}
    for f in page.figures:
        got[int(f.get("data-section", -1))] = got.get(int(f.get("data-section", -1)), 0) + 1
    names = ["bandwidth vs size", "ladder", "roofline", "probe"]
    for s in want:
        if got.get(s, 0) != want[s]:
            problems.append(f"{names[s]} figures: the page has {got.get(s, 0)}, the inputs call for {want[s]}")
    if page.meta.get("streamlab-figures") != str(len(page.figures)):
        problems.append(f"meta streamlab-figures={page.meta.get('streamlab-figures')} but {len(page.figures)} figures")
    dup = sorted({i for i in page.ids if page.ids.count(i) > 1})
    if dup:
        problems.append(f"ids repeated in the page: {dup[:5]}")
    if page.external:
        problems.append(f"the page loads from elsewhere: {page.external[:5]}")
    # every figure's SVG: parse it and find its axis labels
    blocks = re.findall(r'<figure class="plot" id="([^"]+)"[^>]*>(.*?)</figure>', text, re.S)
    if len(blocks) != len(page.figures):
        problems.append(f"{len(blocks)} figure blocks found by pattern, {len(page.figures)} by the parser")
    attrs = {f["id"]: f for f in page.figures}
    unit = re.compile(r"\([^)]*[A-Za-z/%][^)]*\)")
    for fid, body in blocks:
        m = re.search(r"<svg.*</svg>", body, re.S)
        if not m:
            problems.append(f"{fid}: no <svg>")
            continue
        try:
            root = ET.fromstring(m.group(0))
        except ET.ParseError as e:
            problems.append(f"{fid}: the SVG does not parse: {e}")
            continue
        texts = set()
        for el in root.iter():
            if el.tag.endswith("}text") or el.tag == "text":
                texts.add("".join(el.itertext()).strip())
        if not any(el.tag.endswith("path") for el in root.iter()):
            problems.append(f"{fid}: the SVG draws no path")
        a = attrs.get(fid, {})
        for axis in ("data-xlabel", "data-ylabel"):
            label = a.get(axis, "")
            if not label:
                problems.append(f"{fid}: no {axis}")
            elif label not in texts:
                problems.append(f"{fid}: gnuplot drew no axis label {label!r}")
            elif not unit.search(label):
                problems.append(f"{fid}: axis label {label!r} gives no unit in parentheses")
    for sec in ("cpu-gpu", "record"):
        if sec not in page.ids:
            problems.append(f"no section #{sec}")
    for path in inputs:
        cmd = json.load(open(path)).get("command")
        if cmd and cmd.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") not in text:
            problems.append(f"the command line of {path} is not on the page")
    if problems:
        print(f"check_report: {html_path}: {len(problems)} problem(s):")
        for p in problems:
            print("  " + p)
        return 1
    print(f"check_report: {html_path}: {len(page.figures)} figures as the inputs call for "
          f"({', '.join(f'{names[s]} {want[s]}' for s in want)}); every SVG parses with labelled axes and units")
    return 0


if __name__ == "__main__":
    sys.exit(main())
