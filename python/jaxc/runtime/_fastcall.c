/* jaxc.runtime._fastcall: the per-call path from Python into compiled code.
 *
 * A compiled function `f` is entered through the execution engine's packed
 * wrapper `_mlir__mlir_ciface_f(void **args)`; args[i] points to a cell that
 * holds the address of memref descriptor i, {allocated, aligned, offset,
 * sizes[rank], strides[rank]} (arguments first, then the results, which are
 * out-parameters the caller allocates). Shapes are static, so an `Entry`
 * keeps a template of every descriptor; a call copies the template to the
 * stack, stores two data pointers per memref, releases the GIL and jumps.
 * Nothing is shared between calls, so calls from several threads need no lock.
 *
 *   Entry(address, arg_specs, result_specs, owner, parallel=False)
 *       arg_specs: ((shape, dtype, also_accepted_dtype_or_None), ...)
 *       result_specs: ((shape, dtype), ...)
 *       parallel: the code forks OpenMP teams (see "Worker pinning")
 *   entry.call(*arrays)           -> tuple of new arrays, or None when an
 *                                    argument is not an ndarray of exactly the
 *                                    spec's dtype and shape, C-contiguous (the
 *                                    caller then checks and converts: cpu.Function)
 *   entry.call_into(ins, outs)    -> run on buffers the caller allocated
 *   entry.run_ready(arrays, out_avals, device)
 *                                 -> ready jaxc Arrays, or None (see below)
 *   entry.call_spmd(lanes, buffers, strides)
 *                                 -> run one device's program on every lane
 *                                    at once (pmap, shard_map: "SPMD" below)
 *   set_mpi(...)                  -> collectives across processes (jaxc.distributed)
 *
 * The jaxc side (dispatch.py, api.py) adds two fast paths that skip the
 * executor when a small program's inputs are ready jaxc Arrays and their
 * device's executor is idle (the same condition as `dispatch.run(inline=True)`):
 * `Entry.run_ready` for eager kernels, and `JitCache`, the base class of
 * `jit`'s JitFunction: calling it looks the positional arguments' avals (and
 * their treedef, for pytrees) up among the signatures registered with
 * `_fast_add`, and runs the entry, all in C; anything else (a new signature,
 * keyword arguments, a trace in progress, a pending input, a busy executor)
 * goes to `self._call_slow(*args, **kwargs)`, the Python path with all its
 * checks. `configure(Array, ShapedArray, config, trace_state)` tells the
 * module jaxc's classes (their slots are read and written at their offsets),
 * jaxc.config (for its tracing context, `_trace_context_id`) and core's thread-local trace state.
 *
 * Compiled code runs with denormals flushed to zero, as XLA runs it on the
 * CPU: `invoke` sets MXCSR's FTZ and DAZ bits around the call and puts the
 * caller's bits back afterwards (the Intel OpenMP runtime copies the
 * master's MXCSR to its workers at each parallel region), so results match
 * JAX's where they underflow (docs/semantics.md, Floating point).
 *
 * For jaxc.profiler: every Array records where it was created
 * (`traceback()`, also called by Array._ready/_pending), and
 * `set_profiling(True)` sends every call down the Python path while a trace
 * runs, so that executions are recorded.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sched.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define MXCSR_FLUSH_DENORMALS 0x8040u /* FTZ (bit 15): results; DAZ (bit 6): inputs */
#define FLUSH_DENORMALS_BEGIN                 \
  unsigned int saved_mxcsr = _mm_getcsr(); \
  _mm_setcsr(saved_mxcsr | MXCSR_FLUSH_DENORMALS);
#define FLUSH_DENORMALS_END _mm_setcsr(saved_mxcsr);
#else /* other hosts keep IEEE subnormals (docs/semantics.md) */
#define FLUSH_DENORMALS_BEGIN
#define FLUSH_DENORMALS_END
#endif

typedef void (*PackedFunction)(void **);

/* ------------------------------------------------------------------------ */
/* Module state: the Array class and its slots                              */
/* ------------------------------------------------------------------------ */

static PyTypeObject *array_type = NULL;  /* jaxc.Array */
static PyTypeObject *aval_type = NULL;   /* jaxc.core.ShapedArray */
static PyObject *jaxc_config = NULL;     /* jaxc.config */
static PyObject *trace_state = NULL;     /* jaxc.core._STATE: `.stack`, the scopes traced in this thread */
static Py_ssize_t off_aval = -1, off_value = -1, off_task = -1, off_cell = -1, off_device = -1;
static Py_ssize_t off_traceback = -1;
static Py_ssize_t off_shape = -1, off_dtype = -1, off_weak = -1;
static PyObject *str_executor, *str_pending, *str_context, *str_stack, *str_call_slow;

#define SLOT(obj, offset) (*(PyObject **)((char *)(obj) + (offset)))

static Py_ssize_t slot_offset(PyTypeObject *type, const char *name) {
  PyObject *descr = PyDict_GetItemString(type->tp_dict, name); /* borrowed */
  if (descr == NULL || Py_TYPE(descr) != &PyMemberDescr_Type) {
    PyErr_Format(PyExc_TypeError, "_fastcall.configure: %s.%s is not a slot", type->tp_name, name);
    return -1;
  }
  PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
  if (member->type != T_OBJECT_EX && member->type != T_OBJECT) {
    PyErr_Format(PyExc_TypeError, "_fastcall.configure: %s.%s is not an object slot", type->tp_name,
                 name);
    return -1;
  }
  return member->offset;
}

static PyObject *configure(PyObject *module, PyObject *args) {
  PyObject *type, *avals, *config, *state;
  if (!PyArg_ParseTuple(args, "O!O!OO:configure", &PyType_Type, &type, &PyType_Type, &avals, &config,
                        &state))
    return NULL;
  PyTypeObject *t = (PyTypeObject *)type, *a = (PyTypeObject *)avals;
  Py_ssize_t offsets[9];
  const char *names[9] = {"aval",  "_value", "_task",     "_cell",     "device",
                          "_traceback", "shape",  "dtype", "weak_type"};
  for (int i = 0; i < 9; i++)
    if ((offsets[i] = slot_offset(i < 6 ? t : a, names[i])) < 0) return NULL;
  off_aval = offsets[0], off_value = offsets[1], off_task = offsets[2], off_cell = offsets[3],
  off_device = offsets[4], off_traceback = offsets[5], off_shape = offsets[6], off_dtype = offsets[7],
  off_weak = offsets[8];
  Py_INCREF(type);
  Py_XSETREF(array_type, t);
  Py_INCREF(avals);
  Py_XSETREF(aval_type, a);
  Py_INCREF(config);
  Py_XSETREF(jaxc_config, config);
  Py_INCREF(state);
  Py_XSETREF(trace_state, state);
  Py_RETURN_NONE;
}

/* Whether two avals are equal: shape, dtype and weak type of ShapedArrays
 * compared here (no Python code runs), anything else with `==`. -1: error. */
static int aval_equal(PyObject *a, PyObject *b) {
  if (a == b) return 1;
  if (a == NULL || b == NULL) return 0;
  if (Py_TYPE(a) != aval_type || Py_TYPE(b) != aval_type) return PyObject_RichCompareBool(a, b, Py_EQ);
  PyObject *da = SLOT(a, off_dtype), *db = SLOT(b, off_dtype);
  PyObject *sa = SLOT(a, off_shape), *sb = SLOT(b, off_shape);
  if (SLOT(a, off_weak) != SLOT(b, off_weak) || !da || !db || !sa || !sb) return 0;
  if (da != db) {
    if (!PyArray_DescrCheck(da) || !PyArray_DescrCheck(db)) return PyObject_RichCompareBool(a, b, Py_EQ);
    if (!PyArray_EquivTypes((PyArray_Descr *)da, (PyArray_Descr *)db)) return 0;
  }
  if (sa == sb) return 1;
  if (!PyTuple_CheckExact(sa) || !PyTuple_CheckExact(sb)) return PyObject_RichCompareBool(a, b, Py_EQ);
  Py_ssize_t n = PyTuple_GET_SIZE(sa);
  if (PyTuple_GET_SIZE(sb) != n) return 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *x = PyTuple_GET_ITEM(sa, i), *y = PyTuple_GET_ITEM(sb, i);
    if (x == y) continue;
    if (!PyLong_CheckExact(x) || !PyLong_CheckExact(y)) return PyObject_RichCompareBool(a, b, Py_EQ);
    int eq = PyObject_RichCompareBool(x, y, Py_EQ); /* ints: no Python code */
    if (eq <= 0) return eq;
  }
  return 1;
}

/* ------------------------------------------------------------------------ */
/* Where an Array was created (jaxc.profiler's memory profile)               */
/* ------------------------------------------------------------------------ */

#define MAX_TRACEBACK_FRAMES 64

/* The calling thread's Python stack, innermost frame first, as a flat tuple
 * (code, where, code, where, ...), at most MAX_TRACEBACK_FRAMES frames.
 * `where` is the frame's last instruction (a byte offset, >= 0; Python 3.11+:
 * cheaper than its line, which jaxc.profiler finds from `code.co_lines()`),
 * or on Python 3.10 minus the line number. */
static PyObject *capture_traceback(void) {
  PyObject *items[2 * MAX_TRACEBACK_FRAMES];
  Py_ssize_t n = 0;
  PyFrameObject *frame = PyEval_GetFrame(); /* borrowed */
  Py_XINCREF(frame);
  while (frame != NULL && n < 2 * MAX_TRACEBACK_FRAMES) {
#if PY_VERSION_HEX >= 0x030B0000
    PyObject *line = PyLong_FromLong(PyFrame_GetLasti(frame));
#else
    PyObject *line = PyLong_FromLong(-PyFrame_GetLineNumber(frame));
#endif
    if (line == NULL) break;
    items[n++] = (PyObject *)PyFrame_GetCode(frame);
    items[n++] = line;
    PyFrameObject *back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
  }
  Py_XDECREF(frame);
  PyObject *tuple = PyTuple_New(n);
  if (tuple == NULL) {
    for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(items[i]);
    return NULL;
  }
  for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(tuple, i, items[i]);
  return tuple;
}

static PyObject *traceback_(PyObject *module, PyObject *unused) { return capture_traceback(); }

/* Set by jaxc.profiler while a trace runs: every call takes the Python path,
 * where executions are recorded. */
static int profiling = 0;

static PyObject *set_profiling(PyObject *module, PyObject *flag) {
  int on = PyObject_IsTrue(flag);
  if (on < 0) return NULL;
  profiling = on;
  Py_RETURN_NONE;
}

/* A ready jaxc Array holding `value` (a reference is stolen). */
static PyObject *new_array(PyObject *aval, PyObject *value, PyObject *device) {
  PyObject *traceback = capture_traceback();
  if (traceback == NULL) {
    Py_DECREF(value);
    return NULL;
  }
  PyObject *self = array_type->tp_alloc(array_type, 0);
  if (self == NULL) {
    Py_DECREF(value);
    Py_DECREF(traceback);
    return NULL;
  }
  SLOT(self, off_traceback) = traceback;
  Py_INCREF(aval);
  SLOT(self, off_aval) = aval;
  SLOT(self, off_value) = value;
  Py_INCREF(Py_None);
  SLOT(self, off_task) = Py_None;
  Py_INCREF(Py_None);
  SLOT(self, off_cell) = Py_None;
  Py_INCREF(device);
  SLOT(self, off_device) = device;
  return self;
}

/* Whether `device`'s executor has no task waiting or running (no executor yet: idle). */
static int device_idle(PyObject *device) {
  PyObject *executor = PyObject_GetAttr(device, str_executor);
  if (executor == NULL) {
    PyErr_Clear();
    return 0;
  }
  int idle = 1;
  if (executor != Py_None) {
    PyObject *pending = PyObject_GetAttr(executor, str_pending);
    if (pending == NULL) {
      PyErr_Clear();
      idle = 0;
    } else {
      idle = PyLong_CheckExact(pending) && PyLong_AsLong(pending) == 0;
      Py_DECREF(pending);
    }
  }
  Py_DECREF(executor);
  return idle;
}

/* ------------------------------------------------------------------------ */
/* Entry: one compiled function                                             */
/* ------------------------------------------------------------------------ */

typedef struct {
  int ndim;
  npy_intp *shape;        /* into Entry.dims */
  npy_intp nbytes;        /* of a C-contiguous buffer of this type */
  PyArray_Descr *dtype;   /* expected (arguments) or allocated (results) */
  PyArray_Descr *also;    /* an argument dtype also accepted (bf16 as its raw bits), or NULL */
} Spec;

typedef struct {
  PyObject_HEAD
  PackedFunction function;
  Py_ssize_t nargs, nresults;
  Spec *specs;            /* nargs + nresults */
  npy_intp *dims;
  int64_t *words;         /* every descriptor, back to back: the template */
  Py_ssize_t nwords;
  Py_ssize_t *slots;      /* word index of each descriptor's `allocated` */
  PyObject *owner;        /* keeps the code alive (the execution engine) */
  int parallel;           /* the code forks OpenMP teams (see thread_hook) */
} Entry;

static PyTypeObject EntryType;

#define STACK_WORDS 512
#define STACK_MEMREFS 64

/* Per-thread OpenMP set-up (`jaxc.runtime.openmp.prepare_thread`). OpenMP
 * keeps the thread count and the dynamic-team flag per calling thread and
 * gives every calling thread a team of its own workers; each thread that
 * runs a parallel function calls `thread_hook` once, with the GIL, before
 * its first one (again after `set_thread_hook` starts a new generation: a
 * changed setting). The hook applies the settings, pins the workers and
 * returns the cores it pinned them to. The caller itself stays free, but a
 * parallel call made while it sits on one of its workers' cores (the
 * scheduler put it there during other work) first moves it off them and
 * restores its mask afterwards: sharing a core with a worker, the call would
 * run at one thread's speed until the scheduler noticed (milliseconds). */
static PyObject *thread_hook = NULL;
static long hook_generation = 1;
static _Thread_local long thread_generation = 0;
#ifdef __linux__
static _Thread_local cpu_set_t worker_cores;  /* where this thread's workers are pinned */
static _Thread_local int has_worker_cores = 0;
#endif

static PyObject *set_thread_hook(PyObject *module, PyObject *hook) {
  PyObject *old = thread_hook;
  thread_hook = hook == Py_None ? NULL : Py_NewRef(hook);
  Py_XDECREF(old);
  hook_generation++;
  Py_RETURN_NONE;
}

static int prepare_this_thread(void) {
  thread_generation = hook_generation;
#ifdef __linux__
  has_worker_cores = 0;
  CPU_ZERO(&worker_cores);
#endif
  if (thread_hook == NULL) return 0;
  PyObject *cores = PyObject_CallNoArgs(thread_hook);
  if (cores == NULL) return -1;
#ifdef __linux__
  PyObject *seq = PySequence_Fast(cores, "thread hook: expected a sequence of core numbers");
  Py_DECREF(cores);
  if (seq == NULL) return -1;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
    long core = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
    if (core == -1 && PyErr_Occurred()) {
      Py_DECREF(seq);
      return -1;
    }
    if (core >= 0 && core < CPU_SETSIZE) {
      CPU_SET((int)core, &worker_cores);
      has_worker_cores = 1;
    }
  }
  Py_DECREF(seq);
#else
  Py_DECREF(cores);
#endif
  return 0;
}

/* Move the calling thread off its workers' cores when it sits on one; returns
 * whether it did (then `saved` holds the mask to restore). */
static int leave_worker_cores(void *saved_mask) {
#ifdef __linux__
  cpu_set_t *saved = saved_mask;
  if (!has_worker_cores) return 0;
  int core = sched_getcpu();
  if (core < 0 || !CPU_ISSET(core, &worker_cores)) return 0;
  if (sched_getaffinity(0, sizeof(cpu_set_t), saved) != 0) return 0;
  cpu_set_t others;
  CPU_ZERO(&others);
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, saved) && !CPU_ISSET(c, &worker_cores)) CPU_SET(c, &others);
  return CPU_COUNT(&others) > 0 && sched_setaffinity(0, sizeof(cpu_set_t), &others) == 0;
#else
  return 0;
#endif
}

static void restore_mask(void *saved_mask) {
#ifdef __linux__
  sched_setaffinity(0, sizeof(cpu_set_t), (cpu_set_t *)saved_mask);
#endif
}

#ifdef __linux__
typedef cpu_set_t SavedMask;
#else
typedef char SavedMask;
#endif

/* Run the function on `buffers` (nargs + nresults arrays, already checked). */
static int invoke(Entry *self, PyArrayObject **buffers) {
  if (self->parallel && thread_generation != hook_generation && prepare_this_thread() < 0) return -1;
  int64_t stack_words[STACK_WORDS];
  void *stack_cells[2 * STACK_MEMREFS];
  Py_ssize_t n = self->nargs + self->nresults;
  int64_t *words = stack_words;
  void **cells = stack_cells;
  if (self->nwords > STACK_WORDS || n > STACK_MEMREFS) {
    words = PyMem_Malloc(sizeof(int64_t) * (size_t)self->nwords + 2 * sizeof(void *) * (size_t)n);
    if (words == NULL) {
      PyErr_NoMemory();
      return -1;
    }
    cells = (void **)(words + self->nwords);
  }
  void **packed = cells + n;
  memcpy(words, self->words, sizeof(int64_t) * (size_t)self->nwords);
  for (Py_ssize_t i = 0; i < n; i++) {
    int64_t *descriptor = words + self->slots[i];
    descriptor[0] = descriptor[1] = (int64_t)(intptr_t)PyArray_DATA(buffers[i]);
    cells[i] = descriptor;
    packed[i] = &cells[i];
  }
  PackedFunction function = self->function;
  int parallel = self->parallel;
  Py_BEGIN_ALLOW_THREADS
  SavedMask saved_mask;
  int moved = parallel && leave_worker_cores(&saved_mask);
  FLUSH_DENORMALS_BEGIN
  function(packed);
  FLUSH_DENORMALS_END
  if (moved) restore_mask(&saved_mask);
  Py_END_ALLOW_THREADS
  if (words != stack_words) PyMem_Free(words);
  return 0;
}

/* Whether `obj` is an ndarray of exactly `spec` (dtype, shape), C-contiguous. */
static inline int matches(const Spec *spec, PyObject *obj) {
  if (!PyArray_CheckExact(obj)) return 0;
  PyArrayObject *array = (PyArrayObject *)obj;
  PyArray_Descr *dtype = PyArray_DESCR(array);
  if (dtype != spec->dtype && dtype != spec->also && !PyArray_EquivTypes(dtype, spec->dtype) &&
      !(spec->also != NULL && PyArray_EquivTypes(dtype, spec->also)))
    return 0;
  if (PyArray_NDIM(array) != spec->ndim) return 0;
  const npy_intp *dims = PyArray_DIMS(array);
  for (int k = 0; k < spec->ndim; k++)
    if (dims[k] != spec->shape[k]) return 0;
  return PyArray_IS_C_CONTIGUOUS(array);
}

/* New uninitialized result arrays into buffers[nargs:]; -1 on failure (none left). */
static int allocate_results(Entry *self, PyArrayObject **buffers) {
  for (Py_ssize_t j = 0; j < self->nresults; j++) {
    Spec *spec = &self->specs[self->nargs + j];
    Py_INCREF(spec->dtype);
    PyObject *out = PyArray_NewFromDescr(&PyArray_Type, spec->dtype, spec->ndim, spec->shape, NULL,
                                         NULL, 0, NULL);
    if (out == NULL) {
      for (Py_ssize_t k = 0; k < j; k++) Py_DECREF(buffers[self->nargs + k]);
      return -1;
    }
    buffers[self->nargs + j] = (PyArrayObject *)out;
  }
  return 0;
}

static int parse_specs(PyObject *seq, Py_ssize_t count, Spec *specs, npy_intp **dims_cursor,
                       int is_result) {
  for (Py_ssize_t i = 0; i < count; i++) {
    PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
    PyObject *shape, *dtype, *also = Py_None;
    if (is_result) {
      if (!PyArg_ParseTuple(item, "OO:result spec", &shape, &dtype)) return -1;
    } else if (!PyArg_ParseTuple(item, "OO|O:argument spec", &shape, &dtype, &also)) {
      return -1;
    }
    Spec *spec = &specs[i];
    if (!PyArray_DescrConverter(dtype, &spec->dtype)) return -1;
    if (also != Py_None && !PyArray_DescrConverter(also, &spec->also)) return -1;
    PyObject *fast = PySequence_Fast(shape, "a spec's shape must be a sequence");
    if (fast == NULL) return -1;
    spec->ndim = (int)PySequence_Fast_GET_SIZE(fast);
    spec->shape = *dims_cursor;
    npy_intp size = 1;
    for (int k = 0; k < spec->ndim; k++) {
      npy_intp d = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(fast, k));
      if (d < 0) {
        Py_DECREF(fast);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "negative dimension");
        return -1;
      }
      spec->shape[k] = d;
      size *= d;
    }
    Py_DECREF(fast);
    *dims_cursor += spec->ndim;
    spec->nbytes = size * (npy_intp)PyDataType_ELSIZE(spec->dtype);
  }
  return 0;
}

static Py_ssize_t total_rank(PyObject *seq, Py_ssize_t count) {
  Py_ssize_t total = 0;
  for (Py_ssize_t i = 0; i < count; i++) {
    PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
    if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) < 2) {
      PyErr_SetString(PyExc_TypeError, "a spec is a tuple (shape, dtype[, also accepted dtype])");
      return -1;
    }
    Py_ssize_t rank = PyObject_Length(PyTuple_GET_ITEM(item, 0));
    if (rank < 0) return -1;
    total += rank;
  }
  return total;
}

static int Entry_init(Entry *self, PyObject *args, PyObject *kwargs) {
  static char *keywords[] = {"address", "args", "results", "owner", "parallel", NULL};
  PyObject *address, *arg_specs, *result_specs, *owner = Py_None;
  int parallel = 0;
  if (self->specs != NULL) {
    PyErr_SetString(PyExc_TypeError, "Entry is already initialized");
    return -1;
  }
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|Op:Entry", keywords, &address, &arg_specs,
                                   &result_specs, &owner, &parallel))
    return -1;
  void *pointer = PyLong_AsVoidPtr(address);
  if (pointer == NULL) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "Entry: null function address");
    return -1;
  }
  PyObject *a = PySequence_Fast(arg_specs, "Entry: args must be a sequence of specs");
  if (a == NULL) return -1;
  PyObject *r = PySequence_Fast(result_specs, "Entry: results must be a sequence of specs");
  if (r == NULL) {
    Py_DECREF(a);
    return -1;
  }
  int status = -1;
  Py_ssize_t nargs = PySequence_Fast_GET_SIZE(a), nresults = PySequence_Fast_GET_SIZE(r);
  Py_ssize_t rank_a = total_rank(a, nargs), rank_r = rank_a < 0 ? -1 : total_rank(r, nresults);
  if (rank_a < 0 || rank_r < 0) goto done;
  Py_ssize_t n = nargs + nresults;
  self->specs = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof(Spec));
  self->dims = PyMem_Calloc((size_t)(rank_a + rank_r + 1), sizeof(npy_intp));
  self->slots = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof(Py_ssize_t));
  self->nwords = 3 * n + 2 * (rank_a + rank_r);
  self->words = PyMem_Calloc((size_t)(self->nwords > 0 ? self->nwords : 1), sizeof(int64_t));
  if (!self->specs || !self->dims || !self->slots || !self->words) {
    PyErr_NoMemory();
    goto done;
  }
  self->nargs = nargs;
  self->nresults = nresults;
  npy_intp *cursor = self->dims;
  if (parse_specs(a, nargs, self->specs, &cursor, 0) < 0) goto done;
  if (parse_specs(r, nresults, self->specs + nargs, &cursor, 1) < 0) goto done;
  /* The descriptor template: {0, 0, 0, sizes, row-major strides (a size-0 dim counts as 1)}. */
  Py_ssize_t w = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    Spec *spec = &self->specs[i];
    self->slots[i] = w;
    int64_t *d = self->words + w;
    d[0] = d[1] = d[2] = 0;
    int64_t step = 1;
    for (int k = spec->ndim - 1; k >= 0; k--) {
      d[3 + k] = spec->shape[k];
      d[3 + spec->ndim + k] = step;
      step *= spec->shape[k] > 0 ? spec->shape[k] : 1;
    }
    w += 3 + 2 * spec->ndim;
  }
  self->function = (PackedFunction)pointer;
  self->parallel = parallel;
  Py_INCREF(owner);
  self->owner = owner;
  status = 0;
done:
  Py_DECREF(a);
  Py_DECREF(r);
  return status;
}

/* The owner (the executable) usually refers back to the Function holding
 * this entry: a cycle the collector must see. */
static int Entry_traverse(Entry *self, visitproc visit, void *arg) {
  Py_VISIT(self->owner);
  return 0;
}

static int Entry_clear(Entry *self) {
  Py_CLEAR(self->owner);
  return 0;
}

static void Entry_dealloc(Entry *self) {
  PyObject_GC_UnTrack(self);
  if (self->specs != NULL) {
    for (Py_ssize_t i = 0; i < self->nargs + self->nresults; i++) {
      Py_XDECREF(self->specs[i].dtype);
      Py_XDECREF(self->specs[i].also);
    }
  }
  PyMem_Free(self->specs);
  PyMem_Free(self->dims);
  PyMem_Free(self->slots);
  PyMem_Free(self->words);
  Py_XDECREF(self->owner);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static int check_ready(Entry *self) {
  if (self->function == NULL) {
    PyErr_SetString(PyExc_TypeError, "Entry is not initialized");
    return -1;
  }
  return 0;
}

#define BUFFERS(name, count)                                             \
  PyArrayObject *name##_stack[STACK_MEMREFS];                            \
  PyArrayObject **name = name##_stack;                                   \
  if ((count) > STACK_MEMREFS) {                                         \
    name = PyMem_Malloc(sizeof(PyArrayObject *) * (size_t)(count));      \
    if (name == NULL) return PyErr_NoMemory();                           \
  }
#define FREE_BUFFERS(name) \
  if (name != name##_stack) PyMem_Free(name)

/* entry.call(*arrays) -> tuple of results, or None to ask for the checked path. */
static PyObject *Entry_call(Entry *self, PyObject *const *args, Py_ssize_t nargs) {
  if (check_ready(self) < 0) return NULL;
  if (nargs != self->nargs) Py_RETURN_NONE;
  for (Py_ssize_t i = 0; i < nargs; i++)
    if (!matches(&self->specs[i], args[i])) Py_RETURN_NONE;
  Py_ssize_t n = self->nargs + self->nresults;
  BUFFERS(buffers, n);
  for (Py_ssize_t i = 0; i < nargs; i++) buffers[i] = (PyArrayObject *)args[i];
  PyObject *result = NULL;
  if (allocate_results(self, buffers) < 0) goto done;
  if (invoke(self, buffers) < 0) {
    for (Py_ssize_t j = 0; j < self->nresults; j++) Py_DECREF(buffers[nargs + j]);
    goto done;
  }
  result = PyTuple_New(self->nresults);
  if (result == NULL) {
    for (Py_ssize_t j = 0; j < self->nresults; j++) Py_DECREF(buffers[nargs + j]);
    goto done;
  }
  for (Py_ssize_t j = 0; j < self->nresults; j++)
    PyTuple_SET_ITEM(result, j, (PyObject *)buffers[nargs + j]);
done:
  FREE_BUFFERS(buffers);
  return result;
}

/* entry.call_into(inputs, outputs): run on caller-allocated C-contiguous
 * buffers of the right sizes (CUDA managed memory, for instance). */
static PyObject *Entry_call_into(Entry *self, PyObject *const *args, Py_ssize_t nargs) {
  if (check_ready(self) < 0) return NULL;
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "call_into(inputs, outputs)");
    return NULL;
  }
  PyObject *ins = PySequence_Fast(args[0], "call_into: inputs must be a sequence");
  if (ins == NULL) return NULL;
  PyObject *outs = PySequence_Fast(args[1], "call_into: outputs must be a sequence");
  if (outs == NULL) {
    Py_DECREF(ins);
    return NULL;
  }
  PyObject *result = NULL;
  Py_ssize_t n = self->nargs + self->nresults;
  PyArrayObject *buffers_stack[STACK_MEMREFS];
  PyArrayObject **buffers = buffers_stack;
  if (PySequence_Fast_GET_SIZE(ins) != self->nargs ||
      PySequence_Fast_GET_SIZE(outs) != self->nresults) {
    PyErr_Format(PyExc_TypeError, "call_into: expected %zd inputs and %zd outputs", self->nargs,
                 self->nresults);
    goto done;
  }
  if (n > STACK_MEMREFS && (buffers = PyMem_Malloc(sizeof(PyArrayObject *) * (size_t)n)) == NULL) {
    PyErr_NoMemory();
    goto done;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *obj = i < self->nargs ? PySequence_Fast_GET_ITEM(ins, i)
                                    : PySequence_Fast_GET_ITEM(outs, i - self->nargs);
    if (!PyArray_Check(obj) || !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)obj) ||
        PyArray_NBYTES((PyArrayObject *)obj) != self->specs[i].nbytes ||
        (i >= self->nargs && !PyArray_ISWRITEABLE((PyArrayObject *)obj))) {
      PyErr_Format(PyExc_TypeError,
                   "call_into: %s %zd must be a C-contiguous%s ndarray of %zd bytes",
                   i < self->nargs ? "input" : "output",
                   i < self->nargs ? i : i - self->nargs, i < self->nargs ? "" : " writable",
                   (Py_ssize_t)self->specs[i].nbytes);
      goto done;
    }
    buffers[i] = (PyArrayObject *)obj;
  }
  if (invoke(self, buffers) == 0) result = Py_NewRef(Py_None);
done:
  if (buffers != buffers_stack) PyMem_Free(buffers);
  Py_DECREF(ins);
  Py_DECREF(outs);
  return result;
}

/* Run on the values of ready Arrays; wrap the results as ready Arrays with
 * `out_avals` (a tuple) on `device`. Returns a new list, or None (nothing
 * happened) when an input is not a ready Array of `device` matching its spec,
 * or the device's executor is busy. `inputs` holds nargs objects. */
static PyObject *run_arrays(Entry *self, PyObject *const *inputs, PyObject *out_avals,
                            PyObject *device) {
  if (array_type == NULL || profiling) Py_RETURN_NONE;
  Py_ssize_t nargs = self->nargs, n = nargs + self->nresults;
  BUFFERS(buffers, n);
  for (Py_ssize_t i = 0; i < nargs; i++) {
    PyObject *x = inputs[i];
    if (Py_TYPE(x) != array_type || SLOT(x, off_device) != device) goto miss;
    PyObject *value = SLOT(x, off_value);
    if (value == NULL || !matches(&self->specs[i], value)) goto miss;
    buffers[i] = (PyArrayObject *)value;
  }
  if (!device_idle(device)) goto miss;
  PyObject *result = PyList_New(self->nresults);
  if (result == NULL || allocate_results(self, buffers) < 0) {
    Py_XDECREF(result);
    FREE_BUFFERS(buffers);
    return NULL;
  }
  /* The values stay alive while the GIL is released (another thread may drop their Arrays). */
  for (Py_ssize_t i = 0; i < nargs; i++) Py_INCREF(buffers[i]);
  int status = invoke(self, buffers);
  for (Py_ssize_t i = 0; i < nargs; i++) Py_DECREF(buffers[i]);
  for (Py_ssize_t j = 0; j < self->nresults; j++) {
    PyArrayObject *out = buffers[nargs + j];
    PyArray_CLEARFLAGS(out, NPY_ARRAY_WRITEABLE);
    /* new_array steals `out`; after a failure the rest are only released. */
    PyObject *array = status < 0 ? (Py_DECREF(out), NULL)
                                 : new_array(PyTuple_GET_ITEM(out_avals, j), (PyObject *)out, device);
    if (array == NULL) status = -1;
    else PyList_SET_ITEM(result, j, array);
  }
  FREE_BUFFERS(buffers);
  if (status < 0) Py_CLEAR(result);
  return result;
miss:
  FREE_BUFFERS(buffers);
  Py_RETURN_NONE;
}

/* entry.run_ready(arrays, out_avals, device) -> list of ready Arrays, or None. */
static PyObject *Entry_run_ready(Entry *self, PyObject *const *args, Py_ssize_t nargs) {
  if (check_ready(self) < 0) return NULL;
  if (nargs != 3 || !PyTuple_Check(args[1])) {
    PyErr_SetString(PyExc_TypeError, "run_ready(arrays, out_avals: tuple, device)");
    return NULL;
  }
  if (PyTuple_GET_SIZE(args[1]) != self->nresults) {
    PyErr_SetString(PyExc_ValueError, "run_ready: one aval per result");
    return NULL;
  }
  PyObject *inputs = PySequence_Fast(args[0], "run_ready: arrays must be a sequence");
  if (inputs == NULL) return NULL;
  PyObject *result = Py_None;
  if (PySequence_Fast_GET_SIZE(inputs) == self->nargs)
    result = run_arrays(self, PySequence_Fast_ITEMS(inputs), args[1], args[2]);
  else
    Py_INCREF(result);
  Py_DECREF(inputs);
  return result;
}

static PyObject *Entry_get_nargs(Entry *self, void *closure) { return PyLong_FromSsize_t(self->nargs); }
static PyObject *Entry_get_nresults(Entry *self, void *closure) {
  return PyLong_FromSsize_t(self->nresults);
}


/* ------------------------------------------------------------------------ */
/* SPMD: one program on N lanes (pmap), and the collectives it calls        */
/* ------------------------------------------------------------------------ */

/* `entry.call_spmd(lanes, buffers, strides)` runs the compiled function on
 * `lanes` threads at once. `buffers` holds nargs + nresults C-contiguous
 * ndarrays and `strides` the bytes from one lane's part of each to the next
 * (0: every lane reads the same buffer). Lane i's memref k starts at
 * data(buffers[k]) + i * strides[k]. The lanes form a group; while they run,
 * the program's collectives (lowered by passes/lowering/collectives.py to
 * calls of the functions below, resolved by the execution engine) meet at
 * the group's barrier: every lane publishes its operand and result buffers,
 * each lane does its share, and a second barrier keeps every buffer alive
 * until all lanes are done with it. All lanes run concurrently (one thread
 * each), so a barrier can never wait for a lane that is not running. */

typedef struct {
  int lanes;
  pthread_barrier_t barrier;
  void **sources;   /* lane -> its operand, while a collective runs */
  void **targets;   /* lane -> its result buffer */
} SpmdGroup;

static _Thread_local SpmdGroup *spmd_group = NULL;
static _Thread_local int64_t spmd_lane = 0;

#define SPMD_EXPORT __attribute__((visibility("default")))
/* The data of a memref passed by its descriptor {allocated, aligned, offset,
 * ...}: the lowering passes identity-layout memrefs, whose offset is 0. */
#define MEMREF_DATA(descriptor) ((void *)(intptr_t)(descriptor)[1])

/* Across processes (jaxc.distributed over MPI): `set_mpi` hands over
 * MPI_Allreduce and MPI_Allgather from the MPI library mpi4py loaded, the
 * communicator, this process's rank and the process count, and the MPI
 * handles of the element types and reductions (jaxc/distributed.py). A
 * collective over an axis that spans processes (the lowering passes
 * `across` = 1) first works among this process's lanes, then lane 0
 * makes one MPI call for the whole process, carrying every group of its
 * lanes, and copies the results to them. Handles travel as intptr_t: MPICH's are ints, the
 * standard ABI's pointers; either way the call passes them in a register. */
typedef int (*MpiAllreduce)(const void *, void *, int, intptr_t, intptr_t, intptr_t);
typedef int (*MpiAllgather)(const void *, int, intptr_t, void *, int, intptr_t, intptr_t);
static struct {
  MpiAllreduce allreduce;
  MpiAllgather allgather;
  intptr_t comm, byte_type, types[10], ops[3];
  int64_t rank, size;
} spmd_mpi = {NULL, NULL, 0, 0, {0}, {0}, 0, 1};

static PyObject *set_mpi(PyObject *module, PyObject *args) {
  unsigned long long allreduce, allgather;
  long long comm, byte_type;
  long long rank, size;
  PyObject *types, *ops;
  if (!PyArg_ParseTuple(args, "KKLLLLOO", &allreduce, &allgather, &comm, &byte_type, &rank, &size, &types,
                        &ops))
    return NULL;
  if (!PyTuple_Check(types) || PyTuple_GET_SIZE(types) != 10 || !PyTuple_Check(ops) ||
      PyTuple_GET_SIZE(ops) != 3) {
    PyErr_SetString(PyExc_TypeError, "set_mpi: 10 type handles and 3 op handles");
    return NULL;
  }
  for (int i = 0; i < 10; i++) spmd_mpi.types[i] = (intptr_t)PyLong_AsLongLong(PyTuple_GET_ITEM(types, i));
  for (int i = 0; i < 3; i++) spmd_mpi.ops[i] = (intptr_t)PyLong_AsLongLong(PyTuple_GET_ITEM(ops, i));
  if (PyErr_Occurred()) return NULL;
  spmd_mpi.allreduce = (MpiAllreduce)(uintptr_t)allreduce;
  spmd_mpi.allgather = (MpiAllgather)(uintptr_t)allgather;
  spmd_mpi.comm = (intptr_t)comm;
  spmd_mpi.byte_type = (intptr_t)byte_type;
  spmd_mpi.rank = rank;
  spmd_mpi.size = size;
  Py_RETURN_NONE;
}

/* This process's rank among the processes (0 without jaxc.distributed). */
SPMD_EXPORT int64_t jaxc_spmd_process(void) { return spmd_mpi.rank; }

/* This lane's index on the pmap axis (0 outside a call_spmd). */
SPMD_EXPORT int64_t jaxc_spmd_lane(void) { return spmd_lane; }

static void spmd_publish(void *source, void *target) {
  spmd_group->sources[spmd_lane] = source;
  spmd_group->targets[spmd_lane] = target;
  pthread_barrier_wait(&spmd_group->barrier);
}

/* Element types and reductions of jaxc_spmd_all_reduce (collectives.py's tables). */
enum { SPMD_F32, SPMD_F64, SPMD_I8, SPMD_I16, SPMD_I32, SPMD_I64, SPMD_U8, SPMD_U16, SPMD_U32,
       SPMD_U64 };
enum { SPMD_SUM, SPMD_MAX, SPMD_MIN };

/* A collective acts within this lane's group: `members` (a row of the
 * lowering's constant table, lane -> its group's lanes in group order) has
 * `group` entries. The member at position p reduces chunk p, in blocks that
 * stay in L1: the block is combined in its own result (results never alias
 * operands: they are fresh buffers), in loops over contiguous elements the
 * compiler vectorizes, then copied into every other member's result. */
#define SPMD_BLOCK 2048
#define SPMD_REDUCE_LOOP(T, COMBINE)                                                  \
  for (int64_t b = begin; b < end; b += SPMD_BLOCK) {                                 \
    int64_t m = end - b < SPMD_BLOCK ? end - b : SPMD_BLOCK;                          \
    T *restrict acc = (T *)g->targets[spmd_lane] + b;                                 \
    memcpy(acc, (const T *)g->sources[members[0]] + b, (size_t)m * sizeof(T));        \
    for (int64_t s = 1; s < group; s++) {                                             \
      const T *restrict src = (const T *)g->sources[members[s]] + b;                  \
      for (int64_t e = 0; e < m; e++) {                                               \
        T a = acc[e], x = src[e];                                                     \
        acc[e] = COMBINE;                                                             \
      }                                                                               \
    }                                                                                 \
    for (int64_t t = 0; t < group; t++)                                               \
      if (members[t] != spmd_lane)                                                    \
        memcpy((T *)g->targets[members[t]] + b, acc, (size_t)m * sizeof(T));          \
  }
/* NaN-propagating max/min for floats, as jnp.maximum/minimum. */
#define SPMD_FMAX (a != a ? a : x != x ? x : x > a ? x : a)
#define SPMD_FMIN (a != a ? a : x != x ? x : x < a ? x : a)
#define SPMD_REDUCE_TYPE(T, IS_FLOAT)                                                     \
  switch (op) {                                                                           \
    case SPMD_SUM: SPMD_REDUCE_LOOP(T, (T)(a + x)) break;                                 \
    case SPMD_MAX: if (IS_FLOAT) { SPMD_REDUCE_LOOP(T, SPMD_FMAX) } else {                \
                     SPMD_REDUCE_LOOP(T, (x > a ? x : a)) } break;                        \
    default: if (IS_FLOAT) { SPMD_REDUCE_LOOP(T, SPMD_FMIN) } else {                      \
               SPMD_REDUCE_LOOP(T, (x < a ? x : a)) } break;                              \
  }

static int64_t spmd_position(const int64_t *members, int64_t group) {
  for (int64_t p = 0; p < group; p++)
    if (members[p] == spmd_lane) return p;
  return 0;
}

/* Across processes, one MPI call per process carries every group of its
 * lanes (the groups, and their order in the table, are the same in every
 * process): lane 0 packs each group's value (its first member's result,
 * which every member holds by now) in table order, all-reduces the pack
 * with the other processes' and copies each group's part to its members.
 * A psum over every lane of each process is one group. */
static void spmd_reduce_across_processes(SpmdGroup *g, const int64_t *table, int64_t group, int64_t count,
                                         int32_t type, int32_t op, int64_t nbytes) {
  int64_t groups = g->lanes / group, k = 0;
  char *packed = malloc((size_t)(2 * groups * nbytes));
  if (packed == NULL) return;
  char *reduced = packed + groups * nbytes;
  for (int64_t lane = 0; lane < g->lanes; lane++)
    if (table[lane * group] == lane) memcpy(packed + nbytes * k++, g->targets[lane], (size_t)nbytes);
  spmd_mpi.allreduce(packed, reduced, (int)(groups * count), spmd_mpi.types[type % 10], spmd_mpi.ops[op % 3],
                     spmd_mpi.comm);
  k = 0;
  for (int64_t lane = 0; lane < g->lanes; lane++) {
    if (table[lane * group] != lane) continue;
    for (int64_t t = 0; t < group; t++) memcpy(g->targets[table[lane * group + t]], reduced + nbytes * k, (size_t)nbytes);
    k++;
  }
  free(packed);
}

/* The same for all_gather: each group's part (its members' operands, at
 * this process's place in the members' results) packed, one MPI_Allgather,
 * then process q's part of group k copied to place q of k's members. */
static void spmd_gather_across_processes(SpmdGroup *g, const int64_t *table, int64_t group, int64_t bytes) {
  int64_t groups = g->lanes / group, part = group * bytes, processes = spmd_mpi.size, k = 0;
  char *sent = malloc((size_t)(groups * part * (1 + processes)));
  if (sent == NULL) return;
  char *got = sent + groups * part;
  for (int64_t lane = 0; lane < g->lanes; lane++)
    if (table[lane * group] == lane)
      memcpy(sent + part * k++, (char *)g->targets[lane] + spmd_mpi.rank * part, (size_t)part);
  spmd_mpi.allgather(sent, (int)(groups * part), spmd_mpi.byte_type, got, (int)(groups * part), spmd_mpi.byte_type,
                     spmd_mpi.comm);
  k = 0;
  for (int64_t lane = 0; lane < g->lanes; lane++) {
    if (table[lane * group] != lane) continue;
    for (int64_t t = 0; t < group; t++)
      for (int64_t q = 0; q < processes; q++)
        memcpy((char *)g->targets[table[lane * group + t]] + q * part, got + (q * groups + k) * part, (size_t)part);
    k++;
  }
  free(sent);
}

/* psum / pmax / pmin of `count` elements over this lane's group (and,
 * with `across`, the same group of every other process). */
SPMD_EXPORT void jaxc_spmd_all_reduce(const int64_t *source, const int64_t *target, int64_t count,
                                      int32_t type, int32_t op, const int64_t *table, int64_t group,
                                      int64_t across) {
  static const int sizes[] = {4, 8, 1, 2, 4, 8, 1, 2, 4, 8};
  SpmdGroup *g = spmd_group;
  int64_t nbytes = count * sizes[type % 10];
  if (g == NULL) { /* called outside call_spmd: one lane */
    memcpy(MEMREF_DATA(target), MEMREF_DATA(source), (size_t)nbytes);
    return;
  }
  spmd_publish(MEMREF_DATA(source), MEMREF_DATA(target));
  const int64_t *members = (const int64_t *)MEMREF_DATA(table) + spmd_lane * group;
  int64_t p = spmd_position(members, group);
  int64_t begin = count * p / group, end = count * (p + 1) / group;
  switch (type) {
    case SPMD_F32: SPMD_REDUCE_TYPE(float, 1) break;
    case SPMD_F64: SPMD_REDUCE_TYPE(double, 1) break;
    case SPMD_I8: SPMD_REDUCE_TYPE(int8_t, 0) break;
    case SPMD_I16: SPMD_REDUCE_TYPE(int16_t, 0) break;
    case SPMD_I32: SPMD_REDUCE_TYPE(int32_t, 0) break;
    case SPMD_I64: SPMD_REDUCE_TYPE(int64_t, 0) break;
    case SPMD_U8: SPMD_REDUCE_TYPE(uint8_t, 0) break;
    case SPMD_U16: SPMD_REDUCE_TYPE(uint16_t, 0) break;
    case SPMD_U32: SPMD_REDUCE_TYPE(uint32_t, 0) break;
    default: SPMD_REDUCE_TYPE(uint64_t, 0) break;
  }
  pthread_barrier_wait(&g->barrier);
  if (across && spmd_mpi.size > 1) {
    if (spmd_lane == 0)
      spmd_reduce_across_processes(g, (const int64_t *)MEMREF_DATA(table), group, count, type, op, nbytes);
    pthread_barrier_wait(&g->barrier);
  }
}

/* all_gather of `bytes` per lane over this lane's group: every member's
 * result holds the members' operands back to back, in group order; each
 * member copies its own operand into all of them. With `across`, the
 * group spans the processes: this process's members write at their
 * global positions (rank * group + p), and lane 0 gathers the rest for
 * every group. */
SPMD_EXPORT void jaxc_spmd_all_gather(const int64_t *source, const int64_t *target, int64_t bytes,
                                      const int64_t *table, int64_t group, int64_t across) {
  SpmdGroup *g = spmd_group;
  int64_t processes = across ? spmd_mpi.size : 1, offset = across ? spmd_mpi.rank * group : 0;
  if (g == NULL) {
    memcpy(MEMREF_DATA(target), MEMREF_DATA(source), (size_t)bytes);
    return;
  }
  spmd_publish(MEMREF_DATA(source), MEMREF_DATA(target));
  const int64_t *members = (const int64_t *)MEMREF_DATA(table) + spmd_lane * group;
  int64_t p = spmd_position(members, group);
  for (int64_t t = 0; t < group; t++)
    memcpy((char *)g->targets[members[t]] + (offset + p) * bytes, MEMREF_DATA(source), (size_t)bytes);
  pthread_barrier_wait(&g->barrier);
  if (processes > 1) {
    if (spmd_lane == 0) spmd_gather_across_processes(g, (const int64_t *)MEMREF_DATA(table), group, bytes);
    pthread_barrier_wait(&g->barrier);
  }
}

/* ppermute: this lane's result is lane `from`'s operand, or zeros (from < 0). */
SPMD_EXPORT void jaxc_spmd_ppermute(const int64_t *source, const int64_t *target, int64_t bytes,
                                    int64_t from) {
  SpmdGroup *g = spmd_group;
  if (g == NULL) {
    memset(MEMREF_DATA(target), 0, (size_t)bytes);
    return;
  }
  spmd_publish(MEMREF_DATA(source), MEMREF_DATA(target));
  if (from >= 0 && from < g->lanes)
    memcpy(MEMREF_DATA(target), g->sources[from], (size_t)bytes);
  else
    memset(MEMREF_DATA(target), 0, (size_t)bytes);
  pthread_barrier_wait(&g->barrier);
}

typedef struct {
  Entry *entry;
  SpmdGroup *group;
  int64_t lane;
  int64_t *words;         /* this lane's descriptors, cells and packed arguments */
} SpmdLane;

static void spmd_run_lane_now(SpmdLane *job) {
  Entry *self = job->entry;
  Py_ssize_t n = self->nargs + self->nresults;
  void **cells = (void **)(job->words + self->nwords);
  spmd_group = job->group;
  spmd_lane = job->lane;
  FLUSH_DENORMALS_BEGIN
  self->function(cells + n);
  FLUSH_DENORMALS_END
  spmd_group = NULL;
  spmd_lane = 0;
}

/* Lanes 1..N-1 run on workers: threads kept for the life of the process,
 * idle ones on a list. A call takes N - 1 of them (starting more when the
 * list is short) before any lane runs, so every lane of a call runs at
 * once on a thread of its own; its workers go back to the list as their
 * lanes end. Starting N - 1 threads per call cost about 50 us a lane. */
typedef struct {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  long remaining;          /* lanes on workers not finished yet */
} SpmdDone;

typedef struct SpmdWorker {
  pthread_t thread;
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  SpmdLane *job;           /* the lane to run; NULL while idle */
  SpmdDone *done;
  struct SpmdWorker *next; /* on the idle list */
} SpmdWorker;

static pthread_mutex_t spmd_pool_mutex = PTHREAD_MUTEX_INITIALIZER;
static SpmdWorker *spmd_idle = NULL;

static void *spmd_worker_main(void *arg) {
  SpmdWorker *w = arg;
  for (;;) {
    pthread_mutex_lock(&w->mutex);
    while (w->job == NULL) pthread_cond_wait(&w->cond, &w->mutex);
    SpmdLane *job = w->job;
    SpmdDone *done = w->done;
    pthread_mutex_unlock(&w->mutex);
    spmd_run_lane_now(job);
    pthread_mutex_lock(&w->mutex);
    w->job = NULL;
    pthread_mutex_unlock(&w->mutex);
    pthread_mutex_lock(&spmd_pool_mutex);  /* idle again before the call may return */
    w->next = spmd_idle;
    spmd_idle = w;
    pthread_mutex_unlock(&spmd_pool_mutex);
    pthread_mutex_lock(&done->mutex);
    if (--done->remaining == 0) pthread_cond_signal(&done->cond);
    pthread_mutex_unlock(&done->mutex);
  }
  return NULL;
}

/* An idle worker, or a new one; NULL when no thread can be started. */
static SpmdWorker *spmd_take_worker(void) {
  pthread_mutex_lock(&spmd_pool_mutex);
  SpmdWorker *w = spmd_idle;
  if (w != NULL) spmd_idle = w->next;
  pthread_mutex_unlock(&spmd_pool_mutex);
  if (w != NULL) return w;
  w = calloc(1, sizeof(SpmdWorker));
  if (w == NULL) return NULL;
  pthread_mutex_init(&w->mutex, NULL);
  pthread_cond_init(&w->cond, NULL);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 16u << 20);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int failed = pthread_create(&w->thread, &attr, spmd_worker_main, w);
  pthread_attr_destroy(&attr);
  if (failed) {
    pthread_mutex_destroy(&w->mutex);
    pthread_cond_destroy(&w->cond);
    free(w);
    return NULL;
  }
  return w;
}

static void spmd_give_back(SpmdWorker *w) {
  pthread_mutex_lock(&spmd_pool_mutex);
  w->next = spmd_idle;
  spmd_idle = w;
  pthread_mutex_unlock(&spmd_pool_mutex);
}

/* entry.call_spmd(lanes, buffers, strides): see the section's comment. */
static PyObject *Entry_call_spmd(Entry *self, PyObject *const *args, Py_ssize_t nargs) {
  if (check_ready(self) < 0) return NULL;
  if (nargs != 3) {
    PyErr_SetString(PyExc_TypeError, "call_spmd(lanes, buffers, strides)");
    return NULL;
  }
  long lanes = PyLong_AsLong(args[0]);
  if (lanes == -1 && PyErr_Occurred()) return NULL;
  if (lanes < 1 || lanes > 4096) {
    PyErr_Format(PyExc_ValueError, "call_spmd: %ld lanes (1 to 4096)", lanes);
    return NULL;
  }
  Py_ssize_t n = self->nargs + self->nresults;
  PyObject *bufs = PySequence_Fast(args[1], "call_spmd: buffers must be a sequence");
  if (bufs == NULL) return NULL;
  PyObject *strs = PySequence_Fast(args[2], "call_spmd: strides must be a sequence");
  if (strs == NULL) {
    Py_DECREF(bufs);
    return NULL;
  }
  PyObject *result = NULL;
  size_t lane_words = (size_t)self->nwords + 2 * (size_t)n;  /* descriptors, cells, packed */
  PyArrayObject **buffers = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof(PyArrayObject *));
  Py_ssize_t *strides = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof(Py_ssize_t));
  SpmdLane *jobs = PyMem_Calloc((size_t)lanes, sizeof(SpmdLane));
  SpmdWorker **workers = PyMem_Calloc((size_t)lanes, sizeof(SpmdWorker *));
  void **slots = PyMem_Calloc(2 * (size_t)lanes, sizeof(void *));
  int64_t *words = PyMem_Calloc((size_t)lanes * (lane_words > 0 ? lane_words : 1), sizeof(int64_t));
  SpmdGroup group = {.lanes = (int)lanes, .sources = slots, .targets = slots + lanes};
  SpmdDone done = {.mutex = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER,
                   .remaining = lanes - 1};
  int barrier_made = 0;
  if (!buffers || !strides || !jobs || !workers || !slots || !words) {
    PyErr_NoMemory();
    goto done;
  }
  if (PySequence_Fast_GET_SIZE(bufs) != n || PySequence_Fast_GET_SIZE(strs) != n) {
    PyErr_Format(PyExc_TypeError, "call_spmd: expected %zd buffers and strides", n);
    goto done;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *obj = PySequence_Fast_GET_ITEM(bufs, i);
    strides[i] = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(strs, i));
    if (strides[i] == -1 && PyErr_Occurred()) goto done;
    Py_ssize_t needed = (Py_ssize_t)self->specs[i].nbytes + (lanes - 1) * strides[i];
    if (!PyArray_Check(obj) || !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)obj) || strides[i] < 0 ||
        PyArray_NBYTES((PyArrayObject *)obj) < needed ||
        (i >= self->nargs && (strides[i] < self->specs[i].nbytes ||
                              !PyArray_ISWRITEABLE((PyArrayObject *)obj)))) {
      PyErr_Format(PyExc_TypeError,
                   "call_spmd: buffer %zd must be a C-contiguous%s ndarray of at least %zd bytes "
                   "(%ld lanes, %zd bytes apart)", i, i < self->nargs ? "" : " writable",
                   needed, lanes, strides[i]);
      goto done;
    }
    buffers[i] = (PyArrayObject *)obj;
  }
  /* Every lane's arguments are made here, so a lane cannot fail once started. */
  for (long lane = 0; lane < lanes; lane++) {
    int64_t *w = words + (size_t)lane * lane_words;
    void **cells = (void **)(w + self->nwords), **packed = cells + n;
    memcpy(w, self->words, sizeof(int64_t) * (size_t)self->nwords);
    for (Py_ssize_t i = 0; i < n; i++) {
      int64_t *descriptor = w + self->slots[i];
      char *data = (char *)PyArray_DATA(buffers[i]) + lane * strides[i];
      descriptor[0] = descriptor[1] = (int64_t)(intptr_t)data;
      cells[i] = descriptor;
      packed[i] = &cells[i];
    }
    jobs[lane] = (SpmdLane){self, &group, lane, w};
  }
  if (pthread_barrier_init(&group.barrier, NULL, (unsigned)lanes) != 0) {
    PyErr_SetString(PyExc_RuntimeError, "call_spmd: cannot make a barrier");
    goto done;
  }
  barrier_made = 1;
  long taken = 1;
  Py_BEGIN_ALLOW_THREADS
  while (taken < lanes && (workers[taken] = spmd_take_worker()) != NULL) taken++;
  if (taken == lanes) {
#ifdef __linux__
    /* Lane i runs on the i-th core this thread may use (round robin); lane
     * 0, this thread, moves to the first for the call. Left to the
     * scheduler, a thread woken by its creator stays on its core for
     * milliseconds: two lanes of an MLP step on two cores ran one at a time. */
    cpu_set_t allowed, one;
    int cores[CPU_SETSIZE], ncores = 0, pinned = 0;
    if (sched_getaffinity(0, sizeof(cpu_set_t), &allowed) == 0)
      for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed)) cores[ncores++] = c;
    for (long i = 1; i < lanes && ncores > 1; i++) {
      CPU_ZERO(&one);
      CPU_SET(cores[i % ncores], &one);
      pthread_setaffinity_np(workers[i]->thread, sizeof(cpu_set_t), &one);
    }
    if (ncores > 1) {
      CPU_ZERO(&one);
      CPU_SET(cores[0], &one);
      pinned = sched_setaffinity(0, sizeof(cpu_set_t), &one) == 0;
    }
#endif
    for (long i = 1; i < lanes; i++) {
      SpmdWorker *w = workers[i];
      pthread_mutex_lock(&w->mutex);
      w->done = &done;
      w->job = &jobs[i];
      pthread_cond_signal(&w->cond);
      pthread_mutex_unlock(&w->mutex);
    }
    spmd_run_lane_now(&jobs[0]);  /* lane 0 on this thread */
    pthread_mutex_lock(&done.mutex);
    while (done.remaining > 0) pthread_cond_wait(&done.cond, &done.mutex);
    pthread_mutex_unlock(&done.mutex);
#ifdef __linux__
    if (pinned) sched_setaffinity(0, sizeof(cpu_set_t), &allowed);
#endif
  } else {
    for (long i = 1; i < taken; i++) spmd_give_back(workers[i]);  /* no lane ran */
  }
  Py_END_ALLOW_THREADS
  if (taken < lanes) {
    PyErr_Format(PyExc_RuntimeError, "call_spmd: could start only %ld of %ld threads (one per lane)",
                 taken, lanes);
    goto done;
  }
  result = Py_NewRef(Py_None);
done:
  if (barrier_made) pthread_barrier_destroy(&group.barrier);
  pthread_mutex_destroy(&done.mutex);
  pthread_cond_destroy(&done.cond);
  PyMem_Free(buffers);
  PyMem_Free(strides);
  PyMem_Free(jobs);
  PyMem_Free(workers);
  PyMem_Free(slots);
  PyMem_Free(words);
  Py_DECREF(bufs);
  Py_DECREF(strs);
  return result;
}

static PyMethodDef Entry_methods[] = {
    {"call", (PyCFunction)(void (*)(void))Entry_call, METH_FASTCALL,
     "call(*arrays) -> tuple of new arrays, or None when an argument is not an exact match"},
    {"call_into", (PyCFunction)(void (*)(void))Entry_call_into, METH_FASTCALL,
     "call_into(inputs, outputs): run on caller-allocated buffers"},
    {"run_ready", (PyCFunction)(void (*)(void))Entry_run_ready, METH_FASTCALL,
     "run_ready(arrays, out_avals, device) -> list of ready Arrays, or None"},
    {"call_spmd", (PyCFunction)(void (*)(void))Entry_call_spmd, METH_FASTCALL,
     "call_spmd(lanes, buffers, strides): run on `lanes` threads at once (pmap)"},
    {NULL}};

static PyGetSetDef Entry_getset[] = {{"nargs", (getter)Entry_get_nargs, NULL, NULL, NULL},
                                     {"nresults", (getter)Entry_get_nresults, NULL, NULL, NULL},
                                     {NULL}};

static PyTypeObject EntryType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "jaxc.runtime._fastcall.Entry",
    .tp_basicsize = sizeof(Entry),
    .tp_dealloc = (destructor)Entry_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)Entry_traverse,
    .tp_clear = (inquiry)Entry_clear,
    .tp_doc = "A compiled function's packed entry point and memref descriptor template.",
    .tp_methods = Entry_methods,
    .tp_getset = Entry_getset,
    .tp_init = (initproc)Entry_init,
    .tp_new = PyType_GenericNew,
};

/* ------------------------------------------------------------------------ */
/* JitCache: the signatures of one jit function that take the fast path      */
/* ------------------------------------------------------------------------ */

/* An item is (argument structure, avals, tracing context) -> (entry, consts, outputs).
 * The structure is NULL for positional Arrays (`f(x, y)`: nothing to
 * flatten), else the treedef of the positional arguments (`f({"w": x})`),
 * found with the `flatten` callable given to JitCache(). */
#define JIT_CACHE_SIZE 8

typedef struct {
  PyObject *avals;      /* tuple of the argument leaves' avals */
  int context;          /* config._trace_context_id when traced (x64 and the TRACE_OPTIONS) */
  Entry *entry;         /* takes the leaves, then `consts` */
  PyObject *consts;     /* tuple of Arrays the function closes over */
  PyObject *out_avals;  /* tuple */
  PyObject *device;
  PyObject *unflatten;  /* callable(list) -> the output pytree, or None: one Array */
  PyObject *tree;       /* the arguments' treedef, or NULL: positional Arrays */
} JitItem;

typedef struct {
  PyObject_HEAD
  PyObject *flatten;             /* callable(args) -> (leaves, treedef), or NULL */
  JitItem items[JIT_CACHE_SIZE]; /* most recently added first */
  int count;
  int trees;                     /* how many items have a tree */
} JitCache;

static void JitItem_clear(JitItem *item) {
  Py_CLEAR(item->avals);
  Py_CLEAR(item->entry);
  Py_CLEAR(item->consts);
  Py_CLEAR(item->out_avals);
  Py_CLEAR(item->device);
  Py_CLEAR(item->unflatten);
  Py_CLEAR(item->tree);
}

static int JitCache_traverse(JitCache *self, visitproc visit, void *arg) {
  Py_VISIT(self->flatten);
  for (int i = 0; i < self->count; i++) {
    Py_VISIT(self->items[i].avals);
    Py_VISIT(self->items[i].entry);
    Py_VISIT(self->items[i].consts);
    Py_VISIT(self->items[i].out_avals);
    Py_VISIT(self->items[i].device);
    Py_VISIT(self->items[i].unflatten);
    Py_VISIT(self->items[i].tree);
  }
  return 0;
}

static void JitCache_forget(JitCache *self) {
  /* Detach first: clearing may run finalizers that look at the cache. */
  JitItem old[JIT_CACHE_SIZE];
  int count = self->count;
  memcpy(old, self->items, sizeof(JitItem) * (size_t)count);
  self->count = self->trees = 0;
  for (int i = 0; i < count; i++) JitItem_clear(&old[i]);
}

static int JitCache_clear_refs(JitCache *self) {
  JitCache_forget(self);
  Py_CLEAR(self->flatten);
  return 0;
}

static int JitCache_init(JitCache *self, PyObject *args, PyObject *kwargs) {
  static char *keywords[] = {"flatten", NULL};
  PyObject *flatten = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:JitCache", keywords, &flatten)) return -1;
  Py_XSETREF(self->flatten, flatten == Py_None ? NULL : Py_NewRef(flatten));
  return 0;
}

static void JitCache_dealloc(JitCache *self) {
  PyObject_GC_UnTrack(self);
  JitCache_clear_refs(self);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *JitCache_clear(JitCache *self, PyObject *unused) {
  JitCache_forget(self);
  Py_RETURN_NONE;
}

/* Whether avals tuples `a` and `b` are equal (aval_equal runs no Python
 * code for ShapedArrays). -1: error. */
static int avals_equal(PyObject *a, PyObject *b) {
  Py_ssize_t n = PyTuple_GET_SIZE(a);
  if (PyTuple_GET_SIZE(b) != n) return 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    int equal = aval_equal(PyTuple_GET_ITEM(a, i), PyTuple_GET_ITEM(b, i));
    if (equal <= 0) return equal;
  }
  return 1;
}

/* _fast_add(avals, context, entry, consts, out_avals, device, unflatten, tree=None):
 * the most recent first; an item for the same entry, avals and structure is
 * replaced, the oldest dropped when full. */
static PyObject *JitCache_add(JitCache *self, PyObject *args) {
  PyObject *avals, *entry, *consts, *out_avals, *device, *unflatten, *tree = Py_None;
  int context;
  if (!PyArg_ParseTuple(args, "O!iO!O!O!OO|O:add", &PyTuple_Type, &avals, &context, &EntryType, &entry,
                        &PyTuple_Type, &consts, &PyTuple_Type, &out_avals, &device, &unflatten,
                        &tree))
    return NULL;
  Entry *e = (Entry *)entry;
  if (PyTuple_GET_SIZE(avals) + PyTuple_GET_SIZE(consts) != e->nargs ||
      PyTuple_GET_SIZE(out_avals) != e->nresults || (unflatten == Py_None && e->nresults != 1)) {
    PyErr_SetString(PyExc_ValueError, "JitCache._fast_add: avals, consts and out_avals do not fit the entry");
    return NULL;
  }
  if (tree != Py_None && self->flatten == NULL)
    Py_RETURN_NONE; /* a copy made without __init__: no pytree signatures */
  /* The same signature again (the fast path declined it: a busy device, a
   * pending input) replaces its item. avals_equal runs no Python code for
   * ShapedArrays; comparing treedefs may, so the item's tree is held and the
   * index checked again afterwards. */
  int drop = -1;
  for (int i = 0; i < self->count; i++) {
    JitItem *item = &self->items[i];
    if (item->context != context || item->entry != e || (item->tree == NULL) != (tree == Py_None)) continue;
    int same = avals_equal(item->avals, avals);
    if (same > 0 && item->tree != NULL && item->tree != tree) {
      PyObject *held = Py_NewRef(item->tree);
      same = PyObject_RichCompareBool(held, tree, Py_EQ);
      if (same > 0 && (i >= self->count || self->items[i].tree != held)) same = 0; /* changed meanwhile */
      Py_DECREF(held);
    }
    if (same < 0) return NULL;
    if (same) {
      drop = i;
      break;
    }
  }
  if (drop < 0) drop = self->count < JIT_CACHE_SIZE ? self->count : JIT_CACHE_SIZE - 1;
  JitItem old = {NULL};
  if (drop < self->count) {
    old = self->items[drop];
    if (old.tree) self->trees--;
  } else {
    self->count++;
  }
  memmove(&self->items[1], &self->items[0], sizeof(JitItem) * (size_t)drop);
  JitItem *item = &self->items[0];
  item->avals = Py_NewRef(avals);
  item->context = context;
  item->entry = (Entry *)Py_NewRef(entry);
  item->consts = Py_NewRef(consts);
  item->out_avals = Py_NewRef(out_avals);
  item->device = Py_NewRef(device);
  item->unflatten = Py_NewRef(unflatten);
  item->tree = tree == Py_None ? NULL : Py_NewRef(tree);
  if (item->tree) self->trees++;
  JitItem_clear(&old);
  Py_RETURN_NONE;
}

/* Whether the Arrays `leaves` have `avals`; equal but distinct avals are
 * replaced by the cached objects, so that the next call compares identities. */
static int avals_match(PyObject *const *leaves, PyObject *avals) {
  Py_ssize_t n = PyTuple_GET_SIZE(avals);
  int replace = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *mine = SLOT(leaves[i], off_aval), *cached = PyTuple_GET_ITEM(avals, i);
    if (mine == cached) continue;
    int equal = aval_equal(mine, cached);
    if (equal <= 0) {
      if (equal < 0) PyErr_Clear();
      return 0;
    }
    replace = 1;
  }
  for (Py_ssize_t i = 0; replace && i < n; i++) {
    PyObject *cached = PyTuple_GET_ITEM(avals, i);
    if (SLOT(leaves[i], off_aval) != cached) Py_XSETREF(SLOT(leaves[i], off_aval), Py_NewRef(cached));
  }
  return 1;
}

/* Run `held` on the Arrays `leaves` (n of them); the output pytree, None, or NULL. */
static PyObject *run_item(JitItem *held, PyObject *const *leaves, Py_ssize_t n) {
  Entry *entry = held->entry;
  Py_ssize_t nconsts = PyTuple_GET_SIZE(held->consts);
  PyObject *result;
  if (nconsts == 0) {
    result = run_arrays(entry, leaves, held->out_avals, held->device);
  } else {
    PyObject *stack[STACK_MEMREFS];
    PyObject **inputs = stack;
    if (entry->nargs > STACK_MEMREFS &&
        (inputs = PyMem_Malloc(sizeof(PyObject *) * (size_t)entry->nargs)) == NULL)
      return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) inputs[i] = leaves[i];
    for (Py_ssize_t i = 0; i < nconsts; i++) inputs[n + i] = PyTuple_GET_ITEM(held->consts, i);
    result = run_arrays(entry, inputs, held->out_avals, held->device);
    if (inputs != stack) PyMem_Free(inputs);
  }
  if (result != NULL && result != Py_None) {
    if (held->unflatten == Py_None) Py_SETREF(result, Py_NewRef(PyList_GET_ITEM(result, 0)));
    else Py_SETREF(result, PyObject_CallOneArg(held->unflatten, result));
  }
  return result;
}

/* A new reference to every object of `item` (the GIL is released during the
 * call and `unflatten` runs Python code: another thread may edit the cache). */
static JitItem hold(const JitItem *item) {
  JitItem held = *item;
  Py_XINCREF(held.avals);
  Py_XINCREF(held.entry);
  Py_XINCREF(held.consts);
  Py_XINCREF(held.out_avals);
  Py_XINCREF(held.device);
  Py_XINCREF(held.unflatten);
  Py_XINCREF(held.tree);
  return held;
}

static int current_context(void) {
  PyObject *flag = PyObject_GetAttr(jaxc_config, str_context);
  if (flag == NULL) {
    PyErr_Clear();
    return -1;
  }
  long context = PyLong_Check(flag) ? PyLong_AsLong(flag) : -1;
  Py_DECREF(flag);
  if (context < 0 || context > INT_MAX) {
    PyErr_Clear();
    return -1;
  }
  return (int)context;
}

/* The tree items: flatten `args`, then compare structure and avals. */
static PyObject *call_tree(JitCache *self, PyObject *args, int context) {
  PyObject *flat = PyObject_CallOneArg(self->flatten, args);
  if (flat == NULL) {
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  PyObject *result = Py_None;
  PyObject *leaves, *tree;
  if (!PyTuple_Check(flat) || PyTuple_GET_SIZE(flat) != 2 ||
      !PyList_CheckExact(leaves = PyTuple_GET_ITEM(flat, 0)))
    goto done;
  tree = PyTuple_GET_ITEM(flat, 1);
  Py_ssize_t n = PyList_GET_SIZE(leaves);
  PyObject *const *items = PySequence_Fast_ITEMS(leaves);
  for (Py_ssize_t i = 0; i < n; i++)
    if (Py_TYPE(items[i]) != array_type) goto done;
  for (int k = 0; k < self->count; k++) {
    if (self->items[k].tree == NULL || self->items[k].context != context ||
        PyTuple_GET_SIZE(self->items[k].avals) != n)
      continue;
    JitItem held = hold(&self->items[k]);
    /* Comparing treedefs may run Python code (custom nodes' data). */
    int same = held.tree == tree ? 1 : PyObject_RichCompareBool(held.tree, tree, Py_EQ);
    if (same < 0) PyErr_Clear();
    if (same > 0 && avals_match(items, held.avals)) {
      result = run_item(&held, items, n);
      JitItem_clear(&held);
      break;
    }
    JitItem_clear(&held);
  }
done:
  if (result == Py_None) Py_INCREF(result);
  Py_DECREF(flat);
  return result;
}

/* _fast_call(args: tuple) -> the output pytree, or None when the fast path
 * does not apply (an argument that is not an Array or a pytree of them, new
 * avals, a pending input, a busy executor). */
static PyObject *JitCache_call(JitCache *self, PyObject *args) {
  if (!PyTuple_CheckExact(args) || array_type == NULL || self->count == 0) Py_RETURN_NONE;
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  PyObject *const *items = &PyTuple_GET_ITEM(args, 0);
  int context = current_context();
  if (context < 0) Py_RETURN_NONE;
  for (Py_ssize_t i = 0; i < n; i++)
    if (Py_TYPE(items[i]) != array_type)
      return self->trees > 0 ? call_tree(self, args, context) : Py_NewRef(Py_None);
  for (int k = 0; k < self->count; k++) {
    JitItem *item = &self->items[k];
    /* avals_match runs no Python code: `item` stays valid until hold(). */
    if (item->tree != NULL || item->context != context || PyTuple_GET_SIZE(item->avals) != n ||
        !avals_match(items, item->avals))
      continue;
    JitItem held = hold(item);
    PyObject *result = run_item(&held, items, n);
    JitItem_clear(&held);
    return result;
  }
  Py_RETURN_NONE;
}

/* Whether this thread is tracing (a non-empty `trace_state.stack`). */
static int tracing(void) {
  if (trace_state == NULL) return 1;
  PyObject *stack = PyObject_GetAttr(trace_state, str_stack);
  if (stack == NULL) {
    PyErr_Clear(); /* never set in this thread: not tracing */
    return 0;
  }
  int busy = !PyList_CheckExact(stack) || PyList_GET_SIZE(stack) > 0;
  Py_DECREF(stack);
  return busy;
}

/* Calling the cache (`jit(f)(...)`, JitFunction derives from JitCache):
 * the fast path for positional arguments outside a trace, else
 * `self._call_slow(*args, **kwargs)` (the Python path). */
static PyObject *JitCache_tp_call(JitCache *self, PyObject *args, PyObject *kwargs) {
  if ((kwargs == NULL || PyDict_GET_SIZE(kwargs) == 0) && self->count > 0 && !profiling &&
      !tracing()) {
    PyObject *out = JitCache_call(self, args);
    if (out != Py_None) return out; /* the outputs, or NULL: an error */
    Py_DECREF(out);
  }
  PyObject *slow = PyObject_GetAttr((PyObject *)self, str_call_slow);
  if (slow == NULL) return NULL;
  PyObject *out = PyObject_Call(slow, args, kwargs);
  Py_DECREF(slow);
  return out;
}

static PyObject *JitCache_len(JitCache *self, PyObject *unused) { return PyLong_FromLong(self->count); }

static PyMethodDef JitCache_methods[] = {
    {"_fast_add", (PyCFunction)JitCache_add, METH_VARARGS,
     "_fast_add(avals, context, entry, consts, out_avals, device, unflatten, tree=None)"},
    {"_fast_call", (PyCFunction)JitCache_call, METH_O,
     "_fast_call(args) -> the outputs, or None when the fast path does not apply"},
    {"_fast_clear", (PyCFunction)JitCache_clear, METH_NOARGS, "forget every signature"},
    {"_fast_size", (PyCFunction)JitCache_len, METH_NOARGS, "how many signatures are cached"},
    {NULL}};

static PyTypeObject JitCacheType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "jaxc.runtime._fastcall.JitCache",
    .tp_basicsize = sizeof(JitCache),
    .tp_dealloc = (destructor)JitCache_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .tp_doc = "JitCache(flatten=None): the signatures of one jit function that take the fast "
              "path; calling it runs one, else self._call_slow(*args, **kwargs).",
    .tp_call = (ternaryfunc)JitCache_tp_call,
    .tp_traverse = (traverseproc)JitCache_traverse,
    .tp_clear = (inquiry)JitCache_clear_refs,
    .tp_methods = JitCache_methods,
    .tp_init = (initproc)JitCache_init,
    .tp_new = PyType_GenericNew,
};

/* ------------------------------------------------------------------------ */

static PyMethodDef module_methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(Array, ShapedArray, config, trace_state): jaxc's Array and aval classes, "
     "jaxc.config and the thread-local trace state (jaxc.core._STATE)"},
    {"traceback", traceback_, METH_NOARGS,
     "traceback() -> (code, where, ...): the caller's stack, innermost first (see capture_traceback)"},
    {"set_thread_hook", set_thread_hook, METH_O,
     "set_thread_hook(hook or None): what a thread calls once before its first parallel function "
     "(jaxc.runtime.openmp.prepare_thread: settings, pinned workers); a new hook starts a new "
     "generation: every thread calls it again"},
    {"set_mpi", set_mpi, METH_VARARGS,
     "set_mpi(MPI_Allreduce, MPI_Allgather, comm, MPI_BYTE, rank, size, type handles (10), op handles "
     "(sum, max, min)): collectives across processes (jaxc.distributed)"},
    {"set_profiling", set_profiling, METH_O,
     "set_profiling(on): while on, calls take the Python path (jaxc.profiler records them)"},
    {NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_fastcall",
    "The per-call path from Python into compiled code (see the comment atop _fastcall.c).", -1,
    module_methods};

PyMODINIT_FUNC PyInit__fastcall(void) {
  import_array();
  if (PyType_Ready(&EntryType) < 0 || PyType_Ready(&JitCacheType) < 0) return NULL;
  str_executor = PyUnicode_InternFromString("_executor");
  str_pending = PyUnicode_InternFromString("_pending");
  str_context = PyUnicode_InternFromString("_trace_context_id");
  str_stack = PyUnicode_InternFromString("stack");
  str_call_slow = PyUnicode_InternFromString("_call_slow");
  if (!str_executor || !str_pending || !str_context || !str_stack || !str_call_slow) return NULL;
  PyObject *module = PyModule_Create(&module_def);
  if (module == NULL) return NULL;
  Py_INCREF(&EntryType);
  Py_INCREF(&JitCacheType);
  if (PyModule_AddObject(module, "Entry", (PyObject *)&EntryType) < 0 ||
      PyModule_AddObject(module, "JitCache", (PyObject *)&JitCacheType) < 0) {
    Py_DECREF(module);
    return NULL;
  }
  return module;
}
