/* A tiny real extension module that loads numpy's C API the way a compiled dist that does not
 * require numpy does (duckdb 0.8.1's extension): it imports `numpy.core.multiarray` and reads
 * its `_ARRAY_API` capsule, as numpy 1.x's `import_array()` expands to. No Python headers: the
 * two CPython functions are declared here, and the module is never loaded by the tests, only
 * read for its strings. Built by build.sh. */
typedef struct _object PyObject;
extern PyObject *PyImport_ImportModule(const char *name);
extern PyObject *PyObject_GetAttrString(PyObject *o, const char *attr);

void *numpy_c_api(void) {
    PyObject *multiarray = PyImport_ImportModule("numpy.core.multiarray");
    if (multiarray == 0) {
        return 0;
    }
    return PyObject_GetAttrString(multiarray, "_ARRAY_API");
}
