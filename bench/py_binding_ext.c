/*
 * py_binding_ext.c - the C-extension alternative to ctypes, for measuring
 * the binding layer alone (bench/py_binding_cost.py builds and times it):
 * slext.add(ctx, dtype, n, a, b, c, stream) calls sl_add, as the ctypes
 * binding does, with METH_FASTCALL argument passing.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "streamlab.h"
static PyObject *add(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 7) { PyErr_SetString(PyExc_TypeError, "7 args"); return NULL; }
    void *ctx = PyLong_AsVoidPtr(args[0]);
    int dt = (int)PyLong_AsLong(args[1]);
    size_t n = PyLong_AsSize_t(args[2]);
    void *a = PyLong_AsVoidPtr(args[3]), *b = PyLong_AsVoidPtr(args[4]), *c = PyLong_AsVoidPtr(args[5]);
    void *s = args[6] == Py_None ? NULL : PyLong_AsVoidPtr(args[6]);
    if (PyErr_Occurred()) return NULL;
    return PyLong_FromLong(sl_add((sl_ctx *)ctx, (sl_dtype)dt, n, a, b, c, s));
}
static PyMethodDef m[] = {{"add", (PyCFunction)(void (*)(void))add, METH_FASTCALL, ""}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "slext", NULL, -1, m, NULL, NULL, NULL, NULL};
PyMODINIT_FUNC PyInit_slext(void) { return PyModule_Create(&mod); }
