"""The op table cannot fall behind the C library: every op of src/ops/ops.def
and every function of the generated streamlab_ops.h has a Python binding."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import streamlab as sl
from streamlab import _lib, _ops, _table

REPO = Path(__file__).resolve().parents[2]


def ops_def_names():
    text = (REPO / "src" / "ops" / "ops.def").read_text()
    return re.findall(r"^SL_OP\(\s*[A-Z0-9_]+\s*,\s*([a-z0-9_]+)\s*\)", text, re.M)


def test_every_ops_def_op_has_a_python_function():
    names = ops_def_names()
    assert len(names) >= 11, "ops.def not read"
    missing = [n for n in names if n not in _table.OPS_DEF]
    assert not missing, ("src/ops/ops.def has ops with no Python function: %s; add an OpSpec to "
                         "python/streamlab/_table.py and a function to streamlab/__init__.py "
                         "(docs/python.md, 'Adding an op')" % missing)
    stale = [n for n in _table.OPS_DEF if n not in names]
    assert not stale, "python/streamlab/_table.py names ops that ops.def lacks: %s" % stale


def test_every_c_function_is_bound():
    decls = _lib.read_declarations()
    bound = {s.cfunc for s in _table.OPS}
    missing = sorted(set(decls) - bound)
    assert not missing, ("streamlab_ops.h declares %s with no OpSpec in python/streamlab/_table.py "
                         "(docs/python.md, 'Adding an op')" % missing)


def test_header_matches_the_source_tree():
    """The installed library is the one of this checkout: same op functions as the api.h files."""
    src = {}
    for name in ops_def_names():
        text = re.sub(r"/\*.*?\*/", " ", (REPO / "src" / "ops" / name / "api.h").read_text(), flags=re.S)
        src.update({m.group(1): m.group(2) for m in _lib._DECL.finditer(text)})
    assert set(src) == set(_lib.read_declarations()), "reinstall: pip install ."


@pytest.mark.parametrize("spec", _table.OPS, ids=lambda s: s.name)
def test_every_c_parameter_has_a_source(spec):
    plan = _ops._plan(spec)
    assert len(plan) == len(_lib.read_declarations()[spec.cfunc])


def test_public_functions():
    for spec in _table.OPS:
        fn = getattr(sl, spec.name)
        assert spec.name in sl.__all__ and sl.FUNCTIONS[spec.name] is fn
        assert spec.cfunc in fn.__doc__, "%s's doc string should name %s" % (spec.name, spec.cfunc)


def test_a_missing_binding_is_caught(tmp_path):
    """The check above can fail: a header with one more function is reported."""
    h = tmp_path / "streamlab_ops.h"
    h.write_text((_lib.LIB_PATH.parent / "include" / "streamlab_ops.h").read_text() +
                 "\nsl_status sl_newop(sl_ctx *ctx, sl_dtype dtype, size_t n, const void *x, void *y, void *stream);\n")
    decls = _lib.read_declarations(h)
    assert "sl_newop" in decls and "sl_newop" not in {s.cfunc for s in _table.OPS}
    assert decls["sl_newop"][2] == ("size_t", "n")
