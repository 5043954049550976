"""streamlab.bench: the table (everywhere) and the timing (on a GPU)."""
from __future__ import annotations

import pytest

import streamlab.bench as slb
from conftest import HAVE_CUDA, requires_cuda, torch


def test_format_table():
    rows = slb.Results([{"name": "a", "us": 2.0, "min_us": 1.5, "GB/s": 100.0, "%copy": 50.0, "xb": 0.5},
                        {"name": "b", "us": 1.0, "min_us": 1.0, "GB/s": 200.0, "%copy": 100.0, "xb": 1.0}])
    text = rows.table().splitlines()
    assert text[0].split() == ["name", "us", "min_us", "GB/s", "%copy", "xb"]
    assert text[2].split() == ["a", "2.00", "1.50", "100", "50.0", "0.500"]
    md = rows.markdown().splitlines()
    assert md[0] == "| name | us | min_us | GB/s | %copy | xb |" and md[3].startswith("| b | 1.00 |")


def test_cli_covers_every_op():
    """python -m streamlab.bench OP takes every op of the binding table (streamlab._table.SPECS),
    so that an op added later cannot be left out of it."""
    from streamlab import _table
    assert set(_table.SPECS) <= set(slb._OPS_CLI), set(_table.SPECS) - set(slb._OPS_CLI)
    with pytest.raises(SystemExit) as e:
        slb.main(["no_such_op"])
    assert e.value.code == 2


@pytest.mark.parametrize("reps", ["0", "-3", "x"])
def test_cli_bad_reps_is_a_usage_error(reps, capsys):
    """--reps below 1 is refused before any GPU is looked for (a median of no samples
    would be a StatisticsError after the work)."""
    with pytest.raises(SystemExit) as e:
        slb.main(["add", "--reps", reps])
    assert e.value.code == 2
    assert "--reps" in capsys.readouterr().err


def test_cli_help_text(capsys):
    """--help prints '%' (argparse does not %-format a description)."""
    with pytest.raises(SystemExit) as e:
        slb.main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "%%" not in out and "% of a copy kernel" in out


@requires_cuda
@pytest.mark.parametrize("op", [o for o in slb._OPS_CLI if o in slb._ROW_OPS])
def test_cli_row_ops(op, capsys):
    """Each row op's bench case runs (bf16, 3 timed replays) and prints both sides."""
    assert slb.main([op, "--dtype", "bf16", "--reps", "3", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.count("| streamlab.") == 1 and out.count("\n| ") >= 3, out


@pytest.mark.skipif(torch is None or HAVE_CUDA, reason="needs torch without a usable GPU")
def test_cli_without_gpu_says_so(capsys):
    assert slb.main(["add"]) == 1
    assert "CUDA" in capsys.readouterr().err


@requires_cuda
def test_run_times_and_ratios():
    import streamlab as sl
    n = 1 << 20  # 12 MiB moved: fits in L2, so the flush path runs
    a, b = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    c = torch.empty_like(a)
    rows = slb.run({"sl": lambda: sl.add(a, b, out=c), "torch": lambda: torch.add(a, b, out=c)},
                   bytes=3 * n * 4, baseline="torch", reps=5, memory=True, print_table=False)
    assert [r["name"] for r in rows] == ["sl", "torch"]
    for r in rows:
        assert r["flush_l2"] is True and r["us"] > 0 and r["min_us"] <= r["us"]
        assert r["GB/s"] == pytest.approx(3 * n * 4 / (r["us"] * 1e-6) / 1e9)
        assert 0 < r["%copy"] < 200 and r["peak_MiB"] == 0
    assert rows[1]["xtorch"] == 1.0 and rows[0]["xtorch"] == pytest.approx(rows[1]["us"] / rows[0]["us"])
    torch.cuda.synchronize()
    assert torch.equal(c, a + b)


def test_flush_goes_with_events_only():
    # a caller's flush is run between event-timed calls; a graph cannot take it
    with pytest.raises(ValueError, match="graph=False"):
        slb.time_callable(lambda: None, graph=True, flush=lambda: None)


@requires_cuda
def test_events_with_own_flush_and_budget():
    x = torch.randn(1 << 20, device="cuda")
    y = torch.empty_like(x)
    flushes = []
    t = slb.time_callable(lambda: y.copy_(x), graph=False, reps=7, warmup=2, flush=lambda: flushes.append(1))
    assert t["reps"] == 7 and len(t["times"]) == 7 and len(flushes) == 7 and t["calls"] == 1
    assert 0 < t["min"] <= t["median"]
    # a budget already spent stops at the three samples every row keeps
    t = slb.time_callable(lambda: y.copy_(x), graph=False, reps=50, budget_s=0.0)
    assert t["reps"] == 3 and len(t["times"]) == 3
