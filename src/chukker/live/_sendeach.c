/* chukker.live._sendeach: one message to many sockets in one call (issue 43).
 *
 * The public plane's fan-out writes the same prepared bytes to every viewer's socket.
 * Through the event loop's transport each write costs a Python call and the transport's
 * own checks; here the loop over the sockets is C.
 *
 * send_each(fds, data) -> None | list[tuple[int, int]]
 *
 *   fds:  a list of socket descriptors (ints), each a socket whose transport has nothing
 *         buffered (the caller's rule: see chukker/live/fanout.py, "Direct sends").
 *   data: a bytes-like object, sent whole to each with MSG_DONTWAIT | MSG_NOSIGNAL.
 *
 * Answers None when every send took the whole message, else a list of (index, result)
 * for those that did not: result is the count of bytes sent (0 <= result < len(data))
 * or minus the errno. The GIL is held: the call is short (a slice of the fan-out) and
 * no descriptor can be closed while it runs.
 *
 * Where the kernel has io_uring, the sends of a call go in ONE system call: a SEND for
 * each socket, submitted together, each non-blocking (MSG_DONTWAIT: a full socket
 * answers -EAGAIN at once, never waits, never retried later; without MSG_WAITALL a
 * part sent is answered as a part), all complete when the call returns. On loopback
 * each send wakes its reader; after a plain send() the woken reader may preempt the
 * writer on its way back to user space, once a send; after one io_uring_enter, once a
 * call. Elsewhere (no io_uring, or it is refused: a container's seccomp,
 * kernel.io_uring_disabled) the loop of send() is used. send_loop(fds, data) is that
 * loop alone, and uring() says whether this process uses the ring.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#if defined(__linux__) && __has_include(<linux/io_uring.h>)
#define HAVE_URING 1
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#endif

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif

/* one failed send, noted as (index, result) in *failed (made on first use) */
static int note(PyObject **failed, Py_ssize_t i, long result) {
  if (*failed == NULL && (*failed = PyList_New(0)) == NULL) return -1;
  PyObject *pair = Py_BuildValue("(nl)", i, result);
  if (pair == NULL) return -1;
  int bad = PyList_Append(*failed, pair);
  Py_DECREF(pair);
  return bad;
}

/* the descriptors of fds[start:start + n] into out; -1 for one out of range */
static int read_fds(PyObject *fds, Py_ssize_t start, Py_ssize_t n, int *out) {
  for (Py_ssize_t k = 0; k < n; k++) {
    long fd = PyLong_AsLong(PyList_GET_ITEM(fds, start + k));
    if (fd == -1 && PyErr_Occurred()) return -1;
    out[k] = (fd < 0 || fd > 0x7fffffffL) ? -1 : (int)fd;
  }
  return 0;
}

static int loop_sends(const int *fd, Py_ssize_t start, Py_ssize_t n, const Py_buffer *data,
                      PyObject **failed) {
  for (Py_ssize_t k = 0; k < n; k++) {
    long result;
    if (fd[k] < 0) {
      result = -EBADF;
    } else {
      ssize_t sent;
      do {
        sent = send(fd[k], data->buf, (size_t)data->len, MSG_DONTWAIT | MSG_NOSIGNAL);
      } while (sent < 0 && errno == EINTR);
      if (sent == data->len) continue;
      result = sent < 0 ? -(long)errno : (long)sent;
    }
    if (note(failed, start + k, result)) return -1;
  }
  return 0;
}

#define BATCH 64 /* sends a system call: the fan-out's slice */

#ifdef HAVE_URING
static struct {
  int state; /* 0: not tried in this process, 1: in use, -1: unavailable */
  pid_t pid; /* the process that made it (a forked child makes its own) */
  int fd;
  unsigned *sq_head, *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
  struct io_uring_sqe *sqes;
  struct io_uring_cqe *cqes;
} ring;

static void ring_open(void) {
  struct io_uring_params p;
  memset(&p, 0, sizeof p);
  ring.state = -1;
  ring.pid = getpid();
  int fd = (int)syscall(__NR_io_uring_setup, BATCH, &p);
  if (fd < 0) return;
  if (!(p.features & IORING_FEAT_SINGLE_MMAP) || p.sq_entries < BATCH) {
    close(fd);
    return;
  }
  size_t sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned);
  size_t cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
  size_t size = sq_size > cq_size ? sq_size : cq_size;
  char *sq = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
                  IORING_OFF_SQ_RING);
  if (sq == MAP_FAILED) {
    close(fd);
    return;
  }
  void *sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
  if (sqes == MAP_FAILED) {
    munmap(sq, size);
    close(fd);
    return;
  }
  ring.fd = fd;
  ring.sq_head = (unsigned *)(sq + p.sq_off.head);
  ring.sq_tail = (unsigned *)(sq + p.sq_off.tail);
  ring.sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
  ring.sq_array = (unsigned *)(sq + p.sq_off.array);
  ring.cq_head = (unsigned *)(sq + p.cq_off.head);
  ring.cq_tail = (unsigned *)(sq + p.cq_off.tail);
  ring.cq_mask = (unsigned *)(sq + p.cq_off.ring_mask);
  ring.cqes = (struct io_uring_cqe *)(sq + p.cq_off.cqes);
  ring.sqes = sqes;
  ring.state = 1;
}

static int ring_ready(void) {
  if (ring.state != 0 && ring.pid != getpid()) {
    /* a forked child: the parent's ring is not its own. Its descriptor and mappings stay,
     * unused: the child may have closed that number and given it to a socket since, so
     * closing it here could close a viewer's (an exec drops it: io_uring's are CLOEXEC) */
    ring.state = 0;
  }
  if (ring.state == 0) ring_open();
  return ring.state == 1;
}

/* n (<= BATCH) sends in one io_uring_enter; 1 if the ring failed (the caller loops), -1 on
 * a Python error, 0 done */
static int ring_sends(const int *fd, Py_ssize_t start, Py_ssize_t n, const Py_buffer *data,
                      PyObject **failed) {
  long result[BATCH];
  unsigned char done[BATCH];
  unsigned tail = *ring.sq_tail, mask = *ring.sq_mask, queued = 0;
  for (Py_ssize_t k = 0; k < n; k++) {
    done[k] = 0;
    if (fd[k] < 0) {
      result[k] = -EBADF;
      done[k] = 1;
      continue;
    }
    unsigned at = (tail + queued) & mask;
    struct io_uring_sqe *sqe = &ring.sqes[at];
    memset(sqe, 0, sizeof *sqe);
    sqe->opcode = IORING_OP_SEND;
    sqe->fd = fd[k];
    sqe->addr = (unsigned long)data->buf;
    sqe->len = (unsigned)data->len;
    sqe->msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL;
    sqe->user_data = (unsigned long long)k;
    ring.sq_array[at] = at;
    queued++;
  }
  if (queued) {
    __atomic_store_n(ring.sq_tail, tail + queued, __ATOMIC_RELEASE);
    unsigned seen = 0;
    for (;;) {
      /* submit what the kernel has not taken yet, and wait for what is not complete:
       * MSG_DONTWAIT sends complete inside the call, so the wait is for none */
      unsigned pending = tail + queued - __atomic_load_n(ring.sq_head, __ATOMIC_ACQUIRE);
      long r = syscall(__NR_io_uring_enter, ring.fd, pending, queued - seen,
                       IORING_ENTER_GETEVENTS, NULL, 0);
      int err = r < 0 ? errno : 0;
      unsigned head = *ring.cq_head, ctail = __atomic_load_n(ring.cq_tail, __ATOMIC_ACQUIRE);
      while (head != ctail) {
        struct io_uring_cqe *cqe = &ring.cqes[head & *ring.cq_mask];
        unsigned long long k = cqe->user_data;
        if (k < (unsigned long long)n && !done[k]) {
          result[k] = cqe->res;
          done[k] = 1;
          seen++;
        }
        head++;
      }
      __atomic_store_n(ring.cq_head, head, __ATOMIC_RELEASE);
      if (seen == queued) break;
      if (err == EINTR || err == 0) continue;
      ring.state = -1; /* refused: this process sends with send() from now on */
      if (__atomic_load_n(ring.sq_head, __ATOMIC_ACQUIRE) == tail) {
        __atomic_store_n(ring.sq_tail, tail, __ATOMIC_RELEASE); /* none went: take them back */
        return 1;
      }
      break; /* some went and were not answered: the rest are noted failed (-EIO) */
    }
  }
  for (Py_ssize_t k = 0; k < n; k++) {
    if (done[k] && result[k] == (long)data->len) continue;
    if (note(failed, start + k, done[k] ? result[k] : -EIO)) return -1;
  }
  return 0;
}
#endif

static PyObject *sends(PyObject *args, int use_ring) {
  PyObject *fds;
  Py_buffer data;
  if (!PyArg_ParseTuple(args, "O!y*", &PyList_Type, &fds, &data)) return NULL;
  PyObject *failed = NULL;
  Py_ssize_t n = PyList_GET_SIZE(fds);
  int fd[BATCH];
  (void)use_ring;
  for (Py_ssize_t start = 0; start < n; start += BATCH) {
    Py_ssize_t m = n - start < BATCH ? n - start : BATCH;
    if (read_fds(fds, start, m, fd)) goto error;
#ifdef HAVE_URING
    if (use_ring && ring_ready()) {
      int r = ring_sends(fd, start, m, &data, &failed);
      if (r < 0) goto error;
      if (r == 0) continue;
    }
#endif
    if (loop_sends(fd, start, m, &data, &failed)) goto error;
  }
  PyBuffer_Release(&data);
  if (failed == NULL) Py_RETURN_NONE;
  return failed;
error:
  Py_XDECREF(failed);
  PyBuffer_Release(&data);
  return NULL;
}

static PyObject *send_each(PyObject *self, PyObject *args) {
  (void)self;
  return sends(args, 1);
}

static PyObject *send_loop(PyObject *self, PyObject *args) {
  (void)self;
  return sends(args, 0);
}

static PyObject *uring(PyObject *self, PyObject *args) {
  (void)self;
  (void)args;
#ifdef HAVE_URING
  return PyBool_FromLong(ring_ready());
#else
  Py_RETURN_FALSE;
#endif
}

static PyMethodDef methods[] = {
    {"send_each", send_each, METH_VARARGS,
     "send_each(fds, data): send data whole to each socket; None, or [(index, result)] "
     "for the sends that took less (result: bytes sent, or minus the errno)."},
    {"send_loop", send_loop, METH_VARARGS,
     "send_loop(fds, data): as send_each, with one send() system call a socket."},
    {"uring", uring, METH_NOARGS, "uring(): True if send_each uses io_uring here."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "chukker.live._sendeach",
    "One message to many sockets in one call (the public fan-out's writes).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__sendeach(void) { return PyModule_Create(&module); }
