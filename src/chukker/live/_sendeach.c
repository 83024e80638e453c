/* chukker.live._sendeach: one message to many sockets in one call (issue 43).
 *
 * The public plane's fan-out writes the same prepared bytes to every viewer's socket.
 * Through the event loop's transport each write costs a Python call and the transport's
 * own checks; here the loop over the sockets is C, and each write is a bare send().
 *
 * send_each(fds, data) -> None | list[tuple[int, int]]
 *
 *   fds:  a list of socket descriptors (ints), each a socket whose transport has nothing
 *         buffered (the caller's rule: see chukker/live/fanout.py, "Direct sends").
 *   data: a bytes-like object, sent whole to each with MSG_DONTWAIT | MSG_NOSIGNAL.
 *
 * Answers None when every send took the whole message, else a list of (index, result)
 * for those that did not: result is the count of bytes sent (0 <= result < len(data))
 * or minus the errno. EINTR is retried. The GIL is held: the loop is short (a slice of
 * the fan-out) and no descriptor can be closed while it runs.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <sys/socket.h>
#include <sys/types.h>

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif

static PyObject *send_each(PyObject *self, PyObject *args) {
  PyObject *fds;
  Py_buffer data;
  (void)self;
  if (!PyArg_ParseTuple(args, "O!y*:send_each", &PyList_Type, &fds, &data)) return NULL;
  PyObject *failed = NULL;
  Py_ssize_t n = PyList_GET_SIZE(fds);
  for (Py_ssize_t i = 0; i < n; i++) {
    long fd = PyLong_AsLong(PyList_GET_ITEM(fds, i));
    if (fd == -1 && PyErr_Occurred()) goto error;
    long result;
    if (fd < 0 || fd > 0x7fffffffL) {
      result = -EBADF;
    } else {
      ssize_t sent;
      do {
        sent = send((int)fd, data.buf, (size_t)data.len, MSG_DONTWAIT | MSG_NOSIGNAL);
      } while (sent < 0 && errno == EINTR);
      if (sent == data.len) continue;
      result = sent < 0 ? -(long)errno : (long)sent;
    }
    if (failed == NULL && (failed = PyList_New(0)) == NULL) goto error;
    PyObject *pair = Py_BuildValue("(nl)", i, result);
    if (pair == NULL) goto error;
    int bad = PyList_Append(failed, pair);
    Py_DECREF(pair);
    if (bad) goto error;
  }
  PyBuffer_Release(&data);
  if (failed == NULL) Py_RETURN_NONE;
  return failed;
error:
  Py_XDECREF(failed);
  PyBuffer_Release(&data);
  return NULL;
}

static PyMethodDef methods[] = {
    {"send_each", send_each, METH_VARARGS,
     "send_each(fds, data): send data whole to each socket; None, or [(index, result)] "
     "for the sends that took less (result: bytes sent, or minus the errno)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "chukker.live._sendeach",
    "One message to many sockets in one call (the public fan-out's writes).", -1, methods,
};

PyMODINIT_FUNC PyInit__sendeach(void) { return PyModule_Create(&module); }
