#!/usr/bin/env python3
"""issue11b_summary.py - the results files of bench/issue11b.sh (issue 11, third pass).

Reads the unpacked issue11b-out.tgz of the first call (probe, tests, memcheck,
ladders, torch, ncu details) and of the second (tests, memcheck, ncu raw stall
metrics), and the tile-walk output, and writes
  PREFIX-transpose-2026-11-23b.{md,json}, PREFIX-stencil-2026-11-23b.{md,json},
  PREFIX-probe-issue11-2026-11-23.{md,json}
with the commands in each md header.

Usage: issue11b_summary.py --call1 DIR --call2 DIR [--tilewalk FILE] --out bench/results/h200
"""
import argparse
import csv
import json
import os
import re


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def ncu_raw(path):
    """Kernel rows of an `ncu --csv --page raw` export: name, time, DRAM bytes, stalls per issue."""
    try:
        rows = list(csv.reader(open(path)))
    except OSError:
        return []
    hi = [i for i, r in enumerate(rows) if r and r[0] == "ID"]
    if not hi:
        return []
    h = rows[hi[0]]
    out = []

    def num(r, k):
        try:
            return float(r[h.index(k)].replace(",", ""))
        except (ValueError, IndexError):
            return None

    pre, suf = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
    stall_cols = [(i, n[len(pre):-len(suf)]) for i, n in enumerate(h) if n.startswith(pre) and n.endswith(suf)]
    for r in rows[hi[0] + 2:]:
        if len(r) < len(h):
            continue
        k = {
            "kernel": r[h.index("Kernel Name")],
            "us": num(r, "gpu__time_duration.sum"),
            "dram_read_mb": num(r, "dram__bytes_read.sum"),
            "dram_write_mb": num(r, "dram__bytes_write.sum"),
            "l2_write_sectors": num(r, "lts__t_sectors_srcunit_tex_op_write.sum"),
            "warps_active_pct": num(r, "sm__warps_active.avg.pct_of_peak_sustained_active"),
            "stalls_per_issue": {},
        }
        for i, n in stall_cols:
            try:
                k["stalls_per_issue"][n] = float(r[i].replace(",", ""))
            except ValueError:
                pass
        out.append(k)
    return out


def ncu_table(kernels, title):
    md = ["", "### " + title, "",
          "| kernel | us | DRAM read MB | DRAM write MB | DRAM GB/s | L2 write sectors | warps active % | "
          "stall cycles per issue: total; top 4 |",
          "|---|--:|--:|--:|--:|--:|--:|---|"]
    for k in kernels:
        st = sorted(k["stalls_per_issue"].items(), key=lambda kv: -kv[1])
        tot = sum(v for _, v in st)
        gbs = (k["dram_read_mb"] + k["dram_write_mb"]) / k["us"] * 1e3 if k["us"] else 0
        md.append("| %s | %.1f | %.1f | %.1f | %.0f | %.2f M | %.1f | %.1f; %s |" % (
            re.sub(r"\(.*", "", k["kernel"]).replace("void ", "")[:48], k["us"], k["dram_read_mb"],
            k["dram_write_mb"], gbs, (k["l2_write_sectors"] or 0) / 1e6, k["warps_active_pct"] or 0, tot,
            ", ".join("%s %.1f" % (n, v) for n, v in st[:4])))
    return md + [""]


def grep(path, pat):
    return [l.rstrip() for l in text(path).splitlines() if re.search(pat, l)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--call1", required=True)
    ap.add_argument("--call2", required=True)
    ap.add_argument("--tilewalk")
    ap.add_argument("--out", required=True, help="prefix, e.g. bench/results/h200")
    a = ap.parse_args()
    c1, c2 = a.call1, a.call2
    device = text(os.path.join(c1, "device.txt")).strip().splitlines()
    staged = ("run(kind=\"nvidia-h200\", carry=[\".wt/issue11\", \".deps\"], command=\"cd .wt/issue11 && "
              "cp -r ../../.deps . && bash bench/issue11b.sh\")")
    head = ["Device: " + (device[-1] if device else "?") + " (nvidia-smi: name, driver, memory, SM clock now / max, "
            "memory clock).", "",
            "Commands (device tool, kind nvidia-h200, branch issue11 staged as the lead's `.wt/issue11`):", "", "```",
            "# call 1 (commit 1fc7ae3, 104 s wall): build, probe, tests, memcheck, ladders, torch, ncu details",
            staged,
            "# call 2 (commit 56c89de, 88 s wall): tests, memcheck, ncu raw stall metrics",
            staged.replace("bash bench/issue11b.sh", "STAGES=\\\"build tests memcheck ncuraw\\\" bash bench/issue11b.sh"),
            "# calls 3 and 4 (commits 28f6137, 2c843aa): the tile walk (bench/tile_walk.cu)",
            staged.replace("cp -r ../../.deps . && bash bench/issue11b.sh", "STAGES=tilewalk bash bench/issue11b.sh"),
            "python3 bench/issue11b_summary.py --call1 C1 --call2 C2 --tilewalk TW --out bench/results/h200"
            "   # TW: both tile_walk.txt outputs, labelled",
            "```", ""]
    tests = ["", "## Tests and memcheck", "", "```"]
    for d, what in ((c1, "call 1"), (c2, "call 2")):
        for f in ("test_gpu_transpose.log", "test_gpu_stencil.log", "memcheck-probe.log", "memcheck-transpose.log",
                  "memcheck-stencil.log"):
            for l in grep(os.path.join(d, f), r"checks (passed|failed)|ERROR SUMMARY|LEAK SUMMARY|check-only"):
                tests.append("%s %s: %s" % (what, f, l.replace("========= ", "")))
    tests += ["```", "",
              "Call 1's test_gpu_transpose failed one check only: its count of CUDA rows (12) did not know "
              "vec_big yet; call 2, with the count at 13, passed all 29005 checks, memcheck included.", ""]

    # ---- transpose
    tj, torch = load(os.path.join(c1, "transpose.json")), load(os.path.join(c1, "torch.json"))
    tw = text(a.tilewalk) if a.tilewalk else ""
    md = ["# H200 transpose f32, issue 11 third pass (vec_big; why every tile transpose stops at ~0.91 x copy), "
          "2026-11-23", ""] + head
    md += ["## The ladder (streamlab run, events, median of 30 after 5 warm-ups; every row verified bit for bit "
           "before and after timing)", ""]
    tmd = text(os.path.join(c1, "transpose.md"))
    md += [l for l in tmd.splitlines() if l.startswith("|")]
    md += ["", "## PyTorch x.t().contiguous() (bench/transpose_torch.py, same call)", "",
           "| shape | call | ms | GB/s |", "|---|---|--:|--:|"]
    for r in (torch or {}).get("rows", []):
        md.append("| %s | %s | %.4f | %.1f |" % (r["shape"], r["call"], r["ms"], r["gbs"]))
    k_tp, k_cp = ncu_raw(os.path.join(c2, "ncuraw-tp.csv")), ncu_raw(os.path.join(c2, "ncuraw-copy.csv"))
    md += ["", "## ncu (call 2, `--clock-control none`, 8192^2 f32; one row per profiled launch)"]
    md += ncu_table(k_tp, "transpose: cublasSgeam's kernel, vec (64 x 64), vec_big (128 x 64)")
    md += ncu_table(k_cp, "SM copy kernels over the same bytes (copy op: vec, bulk; 64 Mi f32)")
    if tw:
        md += ["", "## The tile walk (bench/tile_walk.cu, calls 3 and 4): a copy in the transpose's 16 KiB tiles", "",
               "```"] + tw.strip().splitlines() + ["```"]
    md += tests
    with open(a.out + "-transpose-2026-11-23b.md", "w") as f:
        f.write("\n".join(md) + "\n")
    with open(a.out + "-transpose-2026-11-23b.json", "w") as f:
        json.dump({"run": tj, "torch": torch, "ncu_transpose": k_tp, "ncu_copy": k_cp, "tile_walk": tw}, f, indent=1)

    # ---- stencil
    sj = load(os.path.join(c1, "stencil.json"))
    md = ["# H200 2-D stencil f32 8192^2, issue 11 third pass (regwin4_d8: 8 rows ahead), 2026-11-23", ""] + head
    md += ["## The ladder (streamlab run, events, median of 20 after 3 warm-ups; every row bit-exact against the "
           "CPU reference before and after timing)", ""]
    smd = text(os.path.join(c1, "stencil.md"))
    md += [l for l in smd.splitlines() if l.startswith("|")]
    k_st = ncu_raw(os.path.join(c2, "ncuraw-st.csv"))
    md += ["", "## ncu (call 2, `--clock-control none`; 8192 x 8192, R = 1 then R = 4)"]
    md += ncu_table(k_st, "stencil: regwin4 and regwin4_d8")
    md += ncu_table(k_cp, "SM copy kernels over the same bytes (copy op: vec, bulk)")
    md += tests
    with open(a.out + "-stencil-2026-11-23b.md", "w") as f:
        f.write("\n".join(md) + "\n")
    with open(a.out + "-stencil-2026-11-23b.json", "w") as f:
        json.dump({"run": sj, "ncu_stencil": k_st, "ncu_copy": k_cp}, f, indent=1)

    # ---- probes
    pj = load(os.path.join(c1, "probe.json"))
    md = ["# H200 probes of issue 11: smem, bank, l1, const, divergence, 2026-11-23", ""] + head
    md += ["`streamlab probe --only smem,bank,l1,const,divergence --json probe.json --md probe.md` (call 1); "
           "below, its Markdown output as written.", ""]
    pmd = text(os.path.join(c1, "probe.md"))
    md += pmd.splitlines()[1:]
    md += ["", "Under compute-sanitizer memcheck: `STREAMLAB_PROBE_CHECK_ONLY=1 compute-sanitizer --tool memcheck "
           "--leak-check full --error-exitcode 9 streamlab probe --only smem,bank,l1,const,divergence --quick` "
           "(light kernels: 2 blocks, a few iterations; every data check kept, no rate checked or kept)."] + tests
    with open(a.out + "-probe-issue11-2026-11-23.md", "w") as f:
        f.write("\n".join(md) + "\n")
    with open(a.out + "-probe-issue11-2026-11-23.json", "w") as f:
        json.dump(pj, f, indent=1)


if __name__ == "__main__":
    main()
