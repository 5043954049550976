/*
 * torchcall.cpp - streamlab._torchcall: an op's whole eager call on torch
 * tensors in C++ (issue 28's per-call bound; docs/python.md, "Overhead and
 * choices").
 *
 * The Python fast path (_ops._gen_fast) reads 16-20 tensor attributes
 * through torch's Python getters, 40-180 ns each, and allocates outputs
 * with torch.empty_like: about as much host time as torch's own op.
 * Here one object per op (built by _ops._native from the op's OpSpec, once)
 * reads the same facts from the at::Tensor directly, allocates missing
 * outputs with at::empty, fills the C function's arguments and calls it
 * through a generated thunk (_torchcall_thunks.h, python/gen_fastcall.py).
 *
 * It takes only the common case, the same one as the Python fast path:
 * every buffer a torch.Tensor (or nn.Parameter) that is strided, has
 * storage, sits on the CPU or a CUDA device (the first input's), is
 * contiguous and not a lazy negation; dtypes as the OpSpec wants; shapes as
 * the op's rule (elementwise, or rows with per-column and per-row vectors)
 * wants; scalars Python floats or ints; and, with grad mode on, nothing that
 * requires grad where autograd would need a record or out= forbids it. Any
 * other call goes to `fallback` (the package's general path), which raises
 * the precise error or records autograd. No op is implemented here.
 *
 * Built only against the torch it runs with (cmake/install.cmake writes the
 * version into _build_info.py; _ops.py loads this module only when
 * torch.__version__ matches): it uses torch's C++ ABI.
 */
#include <Python.h>
#include <structmember.h>

#include <cstdint>
#include <cstring>
#include <exception>

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/core/GradMode.h>
#include <c10/core/Stream.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/autograd/variable.h>

#include "streamlab.h"

#include "_torchcall_thunks.h"

namespace {

constexpr int MAXB = 8, MAXS = 24, MAXA = 12, NST = 64;

enum Role { R_IN = 0, R_OUT = 1, R_INOUT = 2 };
enum Shape { SH_SAME = 0, SH_SCALAR = 1, SH_COLS = 2, SH_ROWS = 3 };
enum Dt { DT_OP = 0, DT_FIXED = 1, DT_OP_F32 = 2, DT_LIKE = 3 };
enum Slot { S_CTX = 0, S_DTYPE, S_DIM, S_PTR, S_STREAM, S_BUFDT, S_F64, S_F32, S_INT, S_CONST };

struct BufD {
    int arg, role, shape, dt, ref; /* ref: DT_FIXED the sl code, DT_LIKE the buffer index */
};
struct SlotD {
    int kind, idx;
    int64_t lo, hi; /* S_INT: the C type's range; S_CONST: lo is the value */
};

struct OpObject {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    int (*fn)(const sl_slot *);
    int nargs, nbufs, nslots, nret, rows, autograd, written_check;
    BufD buf[MAXB];
    SlotD slot[MAXS];
    int ret[MAXB];
    int8_t op_code[NST];  /* ScalarType -> sl code of the op's dtypes, -1 none */
    int8_t any_code[NST]; /* ScalarType -> sl code of every streamlab dtype */
    int8_t st_of[NST];    /* sl code -> ScalarType (for DT_FIXED allocations) */
    PyObject *fallback, *raise, *what, *ctxs;
};

/* sl_ctx per device (index + 1; CPU at 0), read from _lib._contexts once: a
 * context, once made, is kept for the life of the process. */
void *g_ctx[65];

bool tensor_of(PyObject *o, const at::Tensor **t)
{
    if (!THPVariable_CheckExact(o))
        return false;
    *t = &THPVariable_Unpack(o);
    return true;
}

/* -1 for the CPU, the index for CUDA, -2 for anything else. */
int sl_device(const at::Tensor &t)
{
    c10::Device d = t.device();
    if (d.is_cpu())
        return -1;
    if (d.is_cuda())
        return d.index();
    return -2;
}

bool fill_dtypes(PyObject *map, int8_t *table)
{
    std::memset(table, -1, NST);
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(map, &pos, &k, &v)) {
        if (!THPDtype_Check(k) || !PyLong_Check(v)) {
            PyErr_SetString(PyExc_TypeError, "_torchcall: dtype maps are {torch.dtype: int}");
            return false;
        }
        int st = (int)reinterpret_cast<THPDtype *>(k)->scalar_type;
        if (st < 0 || st >= NST)
            continue;
        table[st] = (int8_t)PyLong_AsLong(v);
    }
    return !PyErr_Occurred();
}

PyObject *fall(OpObject *op, PyObject *const *args, size_t nargsf)
{
    return PyObject_Vectorcall(op->fallback, args, nargsf, nullptr);
}

PyObject *op_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    OpObject *op = reinterpret_cast<OpObject *>(self);
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (kwnames != nullptr || n != op->nargs)
        return PyObject_Vectorcall(op->fallback, args, nargsf, kwnames);
    const at::Tensor *t[MAXB] = {};
    at::Tensor made[MAXB];
    int code[MAXB];
    sl_slot s[MAXS];
    int dev = -2;
    try {
        /* the buffers given: types, device, layout, contiguity, dtypes */
        for (int i = 0; i < op->nbufs; i++) {
            const BufD &b = op->buf[i];
            PyObject *o = args[b.arg];
            if (o == Py_None) {
                if (b.role != R_OUT)
                    return fall(op, args, nargsf);
                continue;
            }
            if (!tensor_of(o, &t[i]))
                return fall(op, args, nargsf);
            const at::Tensor &x = *t[i];
            int d = sl_device(x);
            if (i == 0)
                dev = d;
            if (d != dev || d < -1 || x.layout() != c10::kStrided || !x.has_storage() || !x.is_contiguous() ||
                x.is_neg())
                return fall(op, args, nargsf);
            int st = (int)x.scalar_type();
            int c = st < NST ? op->any_code[st] : -1;
            if (c < 0)
                return fall(op, args, nargsf);
            bool ok;
            switch (b.dt) {
            case DT_OP: ok = i == 0 ? op->op_code[st] >= 0 : c == code[0]; break;
            case DT_FIXED: ok = c == b.ref; break;
            case DT_OP_F32: ok = c == code[0] || x.scalar_type() == at::kFloat; break;
            default: ok = t[b.ref] != nullptr && c == code[b.ref]; break;
            }
            if (!ok)
                return fall(op, args, nargsf);
            code[i] = c;
        }
        if (dev < -1 || dev >= 64)
            return fall(op, args, nargsf);
        /* the dimensions and every given buffer's shape, by the op's rule */
        const at::Tensor &p = *t[0];
        c10::IntArrayRef ps = p.sizes();
        uint64_t dim0, dim1 = 0;
        if (op->rows) {
            if (ps.empty())
                return fall(op, args, nargsf);
            dim1 = (uint64_t)ps.back();
            dim0 = 1;
            for (size_t k = 0; k + 1 < ps.size(); k++)
                dim0 *= (uint64_t)ps[k];
        } else {
            dim0 = (uint64_t)p.numel();
        }
        const int64_t cols = op->rows ? (int64_t)dim1 : 0;
        auto want = [&](int shape) -> c10::IntArrayRef {
            switch (shape) {
            case SH_SAME: return ps;
            case SH_SCALAR: return c10::IntArrayRef();
            case SH_COLS: return c10::IntArrayRef(&cols, 1);
            default: return ps.slice(0, ps.size() - 1);
            }
        };
        for (int i = 1; i < op->nbufs; i++)
            if (t[i] != nullptr && t[i]->sizes() != want(op->buf[i].shape))
                return fall(op, args, nargsf);
        /* autograd: an op with a backward records it, and out= / in-place buffers
         * refuse it, both in the general path */
        if (op->autograd || op->written_check) {
            bool given = op->autograd;
            for (int i = 0; i < op->nbufs && !given; i++)
                given = op->buf[i].role != R_IN && t[i] != nullptr;
            if (given && c10::GradMode::is_enabled())
                for (int i = 0; i < op->nbufs; i++)
                    if (t[i] != nullptr && t[i]->requires_grad())
                        return fall(op, args, nargsf);
        }
        /* the scalars, before anything is allocated */
        for (int k = 0; k < op->nslots; k++) {
            const SlotD &d = op->slot[k];
            if (d.kind == S_F64 || d.kind == S_F32) {
                PyObject *o = args[d.idx];
                double v;
                if (PyFloat_CheckExact(o))
                    v = PyFloat_AS_DOUBLE(o);
                else if (PyLong_CheckExact(o)) {
                    v = PyLong_AsDouble(o);
                    if (v == -1.0 && PyErr_Occurred()) {
                        PyErr_Clear();
                        return fall(op, args, nargsf);
                    }
                } else
                    return fall(op, args, nargsf);
                if (d.kind == S_F64)
                    s[k].d = v;
                else
                    s[k].f = (float)v;
            } else if (d.kind == S_INT) {
                PyObject *o = args[d.idx];
                if (!PyLong_CheckExact(o))
                    return fall(op, args, nargsf);
                int overflow = 0;
                long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
                if (overflow || v < d.lo || v > d.hi)
                    return fall(op, args, nargsf);
                s[k].i = v;
            }
        }
        void *ctx = g_ctx[dev + 1];
        if (ctx == nullptr) {
            PyObject *key = PyLong_FromLong(dev);
            PyObject *v = key ? PyDict_GetItemWithError(op->ctxs, key) : nullptr;
            Py_XDECREF(key);
            if (v == nullptr) {
                if (PyErr_Occurred())
                    return nullptr;
                return fall(op, args, nargsf); /* the general path makes the context */
            }
            ctx = PyLong_AsVoidPtr(v);
            if (ctx == nullptr)
                return nullptr;
            g_ctx[dev + 1] = ctx;
        }
        /* the outputs not given, like the first input */
        for (int i = 0; i < op->nbufs; i++) {
            if (t[i] != nullptr)
                continue;
            const BufD &b = op->buf[i];
            c10::ScalarType st = b.dt == DT_FIXED ? (c10::ScalarType)op->st_of[b.ref]
                                 : b.dt == DT_LIKE ? t[b.ref]->scalar_type() : p.scalar_type();
            made[i] = at::empty(want(b.shape), p.options().dtype(st));
            t[i] = &made[i];
            code[i] = b.dt == DT_FIXED ? b.ref : b.dt == DT_LIKE ? code[b.ref] : code[0];
        }
        void *stream = nullptr;
        if (dev >= 0)
            stream = c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)
                         ->getStream(c10::Device(c10::DeviceType::CUDA, (c10::DeviceIndex)dev))
                         .native_handle();
        for (int k = 0; k < op->nslots; k++) {
            const SlotD &d = op->slot[k];
            switch (d.kind) {
            case S_CTX: s[k].p = ctx; break;
            case S_DTYPE: s[k].i = code[0]; break;
            case S_DIM: s[k].u = d.idx ? dim1 : dim0; break;
            case S_PTR: s[k].p = t[d.idx]->data_ptr(); break;
            case S_STREAM: s[k].p = stream; break;
            case S_BUFDT: s[k].i = code[d.idx]; break;
            case S_CONST: s[k].i = d.lo; break;
            default: break; /* scalars: filled above */
            }
        }
    } catch (const std::exception &) {
        /* anything torch refuses here, the general path says precisely */
        return fall(op, args, nargsf);
    }
    int st;
    Py_BEGIN_ALLOW_THREADS
    st = op->fn(s);
    Py_END_ALLOW_THREADS
    try {
        /* written through a pointer: autograd must see the in-place change */
        for (int i = 0; i < op->nbufs; i++)
            if (op->buf[i].role != R_IN && !made[i].defined() && t[i] != nullptr)
                torch::autograd::impl::bump_version(*t[i]);
    } catch (const std::exception &e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
        return nullptr;
    }
    if (st != 0) {
        PyObject *r = PyObject_CallFunction(op->raise, "iO", st, op->what);
        Py_XDECREF(r);
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_RuntimeError, "streamlab: status %d", st);
        return nullptr;
    }
    auto result = [&](int i) -> PyObject * {
        if (made[i].defined())
            return THPVariable_Wrap(std::move(made[i]));
        PyObject *o = args[op->buf[i].arg];
        Py_INCREF(o);
        return o;
    };
    if (op->nret == 1)
        return result(op->ret[0]);
    PyObject *tup = PyTuple_New(op->nret);
    if (tup == nullptr)
        return nullptr;
    for (int k = 0; k < op->nret; k++) {
        PyObject *o = result(op->ret[k]);
        if (o == nullptr) {
            Py_DECREF(tup);
            return nullptr;
        }
        PyTuple_SET_ITEM(tup, k, o);
    }
    return tup;
}

void op_dealloc(PyObject *self)
{
    OpObject *op = reinterpret_cast<OpObject *>(self);
    Py_XDECREF(op->fallback);
    Py_XDECREF(op->raise);
    Py_XDECREF(op->what);
    Py_XDECREF(op->ctxs);
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_Free(self);
    Py_DECREF(tp); /* a heap type: each instance holds a reference */
}

PyTypeObject *OpType;

/* A tuple of int tuples -> rows of `width` ints. */
bool int_rows(PyObject *seq, int width, int maxn, int64_t (*out)[4], int *n, const char *what)
{
    if (!PyTuple_Check(seq) || PyTuple_GET_SIZE(seq) > maxn) {
        PyErr_Format(PyExc_ValueError, "_torchcall.op: %s must be a tuple of at most %d tuples", what, maxn);
        return false;
    }
    *n = (int)PyTuple_GET_SIZE(seq);
    for (int i = 0; i < *n; i++) {
        PyObject *r = PyTuple_GET_ITEM(seq, i);
        if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != width) {
            PyErr_Format(PyExc_ValueError, "_torchcall.op: each of %s is a tuple of %d ints", what, width);
            return false;
        }
        for (int j = 0; j < width; j++) {
            out[i][j] = PyLong_AsLongLong(PyTuple_GET_ITEM(r, j));
            if (PyErr_Occurred())
                return false;
        }
    }
    return true;
}

/* op(cfunc, nargs, rows, autograd, written_check, bufs, slots, rets, op_dtypes,
 *    all_dtypes, fallback, raise, what, contexts) -> a callable. docs in _ops._native. */
PyObject *make_op(PyObject *, PyObject *args)
{
    const char *cfunc;
    int nargs, rows, autograd, wcheck;
    PyObject *bufs, *slots, *rets, *opd, *alld, *fallback, *raise, *what, *ctxs;
    if (!PyArg_ParseTuple(args, "siiiiOOOO!O!OOUO!", &cfunc, &nargs, &rows, &autograd, &wcheck, &bufs, &slots,
                          &rets, &PyDict_Type, &opd, &PyDict_Type, &alld, &fallback, &raise, &what, &PyDict_Type,
                          &ctxs))
        return nullptr;
    int (*fn)(const sl_slot *) = nullptr;
    int want_slots = -1;
    for (const auto &th : sl_thunks)
        if (std::strcmp(th.name, cfunc) == 0) {
            fn = th.fn;
            want_slots = th.nargs;
        }
    if (fn == nullptr) {
        PyErr_Format(PyExc_ValueError, "_torchcall.op: no thunk for %s", cfunc);
        return nullptr;
    }
    int64_t b[MAXB][4], sl[MAXS][4], r[MAXB][4];
    int nb, ns, nr;
    if (!int_rows(bufs, 4, MAXB, b, &nb, "bufs") || !int_rows(slots, 4, MAXS, sl, &ns, "slots") ||
        !int_rows(rets, 1, MAXB, r, &nr, "rets"))
        return nullptr;
    if (ns != want_slots || nb < 1 || nr < 1 || nargs < 1 || nargs > MAXA || !PyCallable_Check(fallback)) {
        PyErr_Format(PyExc_ValueError, "_torchcall.op: %s: bad description (%d slots for %d parameters)", cfunc,
                     ns, want_slots);
        return nullptr;
    }
    OpObject *op = PyObject_New(OpObject, OpType);
    if (op == nullptr)
        return nullptr;
    op->vectorcall = op_call;
    op->fn = fn;
    op->nargs = nargs;
    op->nbufs = nb;
    op->nslots = ns;
    op->nret = nr;
    op->rows = rows;
    op->autograd = autograd;
    op->written_check = wcheck;
    op->fallback = op->raise = op->what = op->ctxs = nullptr;
    bool ok = true;
    for (int i = 0; i < nb; i++) {
        /* (arg, role, shape, dt * 256 + ref) */
        op->buf[i] = BufD{(int)b[i][0], (int)b[i][1], (int)b[i][2], (int)(b[i][3] >> 8), (int)(b[i][3] & 255)};
        ok = ok && op->buf[i].arg >= 0 && op->buf[i].arg < nargs &&
             (op->buf[i].dt != DT_LIKE || op->buf[i].ref < i);
    }
    for (int i = 0; i < ns; i++) {
        op->slot[i] = SlotD{(int)sl[i][0], (int)sl[i][1], sl[i][2], sl[i][3]};
        const SlotD &d = op->slot[i];
        if (d.kind == S_PTR || d.kind == S_BUFDT)
            ok = ok && d.idx >= 0 && d.idx < nb;
        if (d.kind == S_F64 || d.kind == S_F32 || d.kind == S_INT)
            ok = ok && d.idx >= 0 && d.idx < nargs;
    }
    for (int i = 0; i < nr; i++) {
        op->ret[i] = (int)r[i][0];
        ok = ok && op->ret[i] >= 0 && op->ret[i] < nb;
    }
    if (!ok || op->buf[0].dt != DT_OP || op->buf[0].role == R_OUT) {
        Py_DECREF(op);
        PyErr_Format(PyExc_ValueError, "_torchcall.op: %s: an index out of range", cfunc);
        return nullptr;
    }
    if (!fill_dtypes(opd, op->op_code) || !fill_dtypes(alld, op->any_code)) {
        Py_DECREF(op);
        return nullptr;
    }
    std::memset(op->st_of, (int)c10::ScalarType::Undefined, NST);
    for (int st = 0; st < NST; st++)
        if (op->any_code[st] >= 0 && op->any_code[st] < NST)
            op->st_of[op->any_code[st]] = (int8_t)st;
    Py_INCREF(fallback);
    Py_INCREF(raise);
    Py_INCREF(what);
    Py_INCREF(ctxs);
    op->fallback = fallback;
    op->raise = raise;
    op->what = what;
    op->ctxs = ctxs;
    return reinterpret_cast<PyObject *>(op);
}

PyMethodDef methods[] = {
    {"op", make_op, METH_VARARGS, "op(cfunc, nargs, rows, autograd, written_check, bufs, slots, rets, op_dtypes, "
                                  "all_dtypes, fallback, raise, what, contexts): an op's eager call (_ops._native)"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module = {PyModuleDef_HEAD_INIT, "_torchcall",
                      "streamlab ops on torch tensors, the eager call in C++ (python/torchcall.cpp)", -1, methods,
                      nullptr, nullptr, nullptr, nullptr};

} // namespace

PyMODINIT_FUNC PyInit__torchcall(void)
{
    static PyMemberDef members[] = {
        {"__vectorcalloffset__", T_PYSSIZET, (Py_ssize_t)offsetof(OpObject, vectorcall), READONLY, nullptr},
        {nullptr, 0, 0, 0, nullptr}};
    static PyType_Slot slots[] = {{Py_tp_dealloc, (void *)op_dealloc},
                                  {Py_tp_call, (void *)PyVectorcall_Call},
                                  {Py_tp_members, (void *)members},
                                  {Py_tp_doc, (void *)"One streamlab op's eager call on torch tensors"},
                                  {0, nullptr}};
    static PyType_Spec spec = {"streamlab._torchcall.Op", (int)sizeof(OpObject), 0,
                               Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL, slots};
    OpType = reinterpret_cast<PyTypeObject *>(PyType_FromSpec(&spec));
    if (OpType == nullptr)
        return nullptr;
    PyObject *m = PyModule_Create(&module);
    if (m == nullptr)
        return nullptr;
    if (PyModule_AddObject(m, "Op", reinterpret_cast<PyObject *>(OpType)) < 0) {
        Py_DECREF(m);
        return nullptr;
    }
    Py_INCREF(OpType); /* the module's reference, and ours in OpType */
    return m;
}
