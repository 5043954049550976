/*
 * torch_attr_checks.c - issue 28's question: would the Python fast path's
 * checks be cheap enough in C? A CPython extension (no libtorch headers)
 * doing what the generated fast path of streamlab.add(x, y, out=z) checks
 * (exact torch.Tensor type, dtype, device, contiguity, neg bit,
 * requires_grad, shape equality, data pointers), through the same torch
 * attributes, read with PyObject_GetAttr / PyObject_CallMethodNoArgs.
 * Built and timed by torch_attr_checks.py beside the same checks in Python.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *s_dtype, *s_get_device, *s_is_contiguous, *s_is_neg, *s_shape, *s_requires_grad, *s_data_ptr;
static PyObject *tensor_type;

/* One tensor's metadata; 0 where it is not the common case (or on error). */
static int meta(PyObject *x, PyObject **dt, long *dev, PyObject **shp, void **ptr)
{
    PyObject *o;
    int ok;
    if ((PyObject *)Py_TYPE(x) != tensor_type)
        return 0;
    *dt = PyObject_GetAttr(x, s_dtype); /* a cached dtype object: borrowed after the decref */
    if (!*dt)
        return 0;
    Py_DECREF(*dt);
    o = PyObject_CallMethodNoArgs(x, s_get_device);
    if (!o)
        return 0;
    *dev = PyLong_AsLong(o);
    Py_DECREF(o);
    o = PyObject_CallMethodNoArgs(x, s_is_contiguous);
    ok = o == Py_True;
    Py_XDECREF(o);
    if (!ok)
        return 0;
    o = PyObject_CallMethodNoArgs(x, s_is_neg);
    ok = o == Py_False;
    Py_XDECREF(o);
    if (!ok)
        return 0;
    o = PyObject_GetAttr(x, s_requires_grad);
    ok = o == Py_False;
    Py_XDECREF(o);
    if (!ok)
        return 0;
    *shp = PyObject_GetAttr(x, s_shape);
    if (!*shp)
        return 0;
    o = PyObject_CallMethodNoArgs(x, s_data_ptr);
    if (!o) {
        Py_DECREF(*shp);
        return 0;
    }
    *ptr = PyLong_AsVoidPtr(o);
    Py_DECREF(o);
    return 1;
}

/* check3(x, y, z): x's data pointer where all three pass, else None. */
static PyObject *check3(PyObject *self, PyObject *const *a, Py_ssize_t n)
{
    PyObject *dt[3], *shp[3] = {NULL, NULL, NULL};
    long dev[3];
    void *p[3];
    int ok = 1;
    (void)self;
    if (n != 3 || !tensor_type) {
        PyErr_SetString(PyExc_TypeError, "check3(x, y, z) after set_tensor_type(torch.Tensor)");
        return NULL;
    }
    for (int i = 0; i < 3 && ok; i++)
        ok = meta(a[i], &dt[i], &dev[i], &shp[i], &p[i]);
    if (ok)
        ok = dt[0] == dt[1] && dt[1] == dt[2] && dev[0] == dev[1] && dev[1] == dev[2] &&
             PyObject_RichCompareBool(shp[0], shp[1], Py_EQ) == 1 && PyObject_RichCompareBool(shp[0], shp[2], Py_EQ) == 1;
    for (int i = 0; i < 3; i++)
        Py_XDECREF(shp[i]);
    if (PyErr_Occurred())
        return NULL;
    if (!ok)
        Py_RETURN_NONE;
    return PyLong_FromVoidPtr(p[0]);
}

static PyObject *set_tensor_type(PyObject *self, PyObject *t)
{
    (void)self;
    Py_INCREF(t);
    Py_XDECREF(tensor_type);
    tensor_type = t;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"check3", (PyCFunction)(void (*)(void))check3, METH_FASTCALL, "the three-tensor check in C"},
    {"set_tensor_type", set_tensor_type, METH_O, "the exact type check3 accepts"},
    {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "torch_attr_checks", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_torch_attr_checks(void)
{
#define INTERN(s) s_##s = PyUnicode_InternFromString(#s)
    INTERN(dtype);
    INTERN(get_device);
    INTERN(is_contiguous);
    INTERN(is_neg);
    INTERN(shape);
    INTERN(requires_grad);
    INTERN(data_ptr);
#undef INTERN
    return PyModule_Create(&module);
}
