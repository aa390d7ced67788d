# SPDX-License-Identifier: Apache-2.0
"""ipt.transpose, ipt.transpose_batched, ipt.permute and ipt.imatcopy: pyopencl arrays
transposed in place by ipt_transpose, ipt_transpose_batched, ipt_permute and
ipt_imatcopy."""

import ctypes

import numpy

import pyopencl
import pyopencl.array

from . import _library
from ._axes import checked_axes
from ._errors import Status, check
from ._plan import handle, options_pointer

_lib = _library.lib
ELEMENT_SIZES = (1, 2, 4, 8, 16)


def _check_array(array, ndim=2, what="ipt.transpose"):
    """Refuses, before the library sees it, what it cannot take or would misread."""
    if not isinstance(array, pyopencl.array.Array):
        raise TypeError("%s: expected a pyopencl.array.Array, not %s"
                        % (what, type(array).__name__))
    if ndim is not None and array.ndim != ndim:
        raise ValueError("%s: expected a %d-D array, got shape %s" % (what, ndim, array.shape))
    # The library reads rows * cols consecutive elements: any other stride would make it
    # transpose bytes that are not the array's.
    if not array.flags.c_contiguous:
        raise ValueError("%s: the array must be C-contiguous (strides %s for shape %s)"
                         % (what, array.strides, array.shape))
    if array.dtype.hasobject or array.dtype.itemsize not in ELEMENT_SIZES:
        raise ValueError("%s: dtype %s has %d-byte elements; libipt moves elements of %s "
                         "bytes" % (what, array.dtype, array.dtype.itemsize,
                                    ", ".join(map(str, ELEMENT_SIZES))))
    # The C API takes the offset in elements.
    if array.offset % array.dtype.itemsize:
        raise ValueError("%s: the array's offset (%d bytes) is not a multiple of its %d-byte "
                         "elements" % (what, array.offset, array.dtype.itemsize))


def _wait_list(array, wait_for):
    events = list(array.events) + list(wait_for or [])
    for event in events:
        if not isinstance(event, pyopencl.Event):
            raise TypeError("ipt.transpose: wait_for holds a %s, not a pyopencl.Event"
                            % type(event).__name__)
    return events


def transpose(queue, array, wait_for=None, options=None):
    """Transposes the C-contiguous 2-D `array` (rows x cols) in place on `queue`.

    Returns a new Array of shape (cols, rows) over the same buffer and offset whose
    events hold the transposition's event; the event is also added to `array` (whose
    shape is now stale), so later work on either object waits for it. The call waits for
    array.events and `wait_for` and does not block (the first call of a kernel variant
    compiles it). `queue` None: array.queue. `options`: an ipt.PlanOptions to force a
    plan (None: the library's choice). Raises TypeError or ValueError for arrays it cannot
    take, ipt.Error for an error status; either way the buffer is unchanged.
    """
    _check_array(array)
    if queue is None:
        queue = array.queue
    queue_handle = handle("queue", queue, pyopencl.CommandQueue)
    events = _wait_list(array, wait_for)
    options = options_pointer(options)
    rows, cols = array.shape
    itemsize = array.dtype.itemsize

    if array.base_data is None:
        # pyopencl allocates no buffer for an empty array: nothing to move or to pass.
        return pyopencl.array.Array(queue, (cols, rows), array.dtype,
                                    allocator=array.allocator, events=events)

    wait = (_library.cl_handle * len(events))(*[e.int_ptr for e in events]) if events else None
    event = _library.cl_handle()
    offset = array.offset // itemsize
    buffer = array.base_data.int_ptr
    if options is None:
        # The plain entry point: it reuses cached plans, which the options one never does.
        function = "ipt_transpose"
        status = _lib.ipt_transpose(queue_handle, buffer, offset, rows, cols, len(events),
                                    wait, ctypes.byref(event), itemsize)
    else:
        function = "ipt_transpose_with_options"
        status = _lib.ipt_transpose_with_options(queue_handle, buffer, offset, rows, cols,
                                                 itemsize, options, len(events), wait,
                                                 ctypes.byref(event))
    if status == Status.ROLLED_BACK and event.value:
        # The array keeps its shape and its bytes once the undo completes: later work on it
        # waits for that.
        array.add_event(pyopencl.Event.from_int_ptr(event.value, retain=False))
    check(status, function)

    # The library hands over a retained event that the caller releases: pyopencl now
    # owns that reference (no extra retain).
    done = pyopencl.Event.from_int_ptr(event.value, retain=False)
    array.add_event(done)
    return pyopencl.array.Array(queue, (cols, rows), array.dtype, allocator=array.allocator,
                                data=array.base_data, offset=array.offset, events=[done])


def _call(array, queue, wait_for, function, call):
    """Runs `call(queue_handle, buffer, offset, count, wait, event)` for a C function that
    enqueues on the array's buffer; adds its event to the array and returns it."""
    if queue is None:
        queue = array.queue
    queue_handle = handle("queue", queue, pyopencl.CommandQueue)
    events = _wait_list(array, wait_for)
    wait = (_library.cl_handle * len(events))(*[e.int_ptr for e in events]) if events else None
    event = _library.cl_handle()
    status = call(queue_handle, array.base_data.int_ptr, array.offset // array.dtype.itemsize,
                  len(events), wait, ctypes.byref(event))
    if status == Status.ROLLED_BACK and event.value:
        array.add_event(pyopencl.Event.from_int_ptr(event.value, retain=False))
    check(status, function)
    done = pyopencl.Event.from_int_ptr(event.value, retain=False)
    array.add_event(done)
    return queue, done


def transpose_batched(queue, array, wait_for=None):
    """Transposes each matrix of the C-contiguous 3-D `array` (batch, rows, cols) in place,
    in one call (ipt_transpose_batched).

    Returns a new Array of shape (batch, cols, rows) over the same buffer whose events hold
    the call's event (also added to `array`). Otherwise as ipt.transpose.
    """
    _check_array(array, 3, "ipt.transpose_batched")
    batch, rows, cols = array.shape
    if array.base_data is None:
        return pyopencl.array.Array(queue or array.queue, (batch, cols, rows), array.dtype,
                                    allocator=array.allocator)
    queue, done = _call(array, queue, wait_for, "ipt_transpose_batched",
                        lambda q, buffer, offset, count, wait, event: _lib.ipt_transpose_batched(
                            q, buffer, offset, batch, rows, cols, count, wait, event,
                            array.dtype.itemsize))
    return pyopencl.array.Array(queue, (batch, cols, rows), array.dtype, allocator=array.allocator,
                                data=array.base_data, offset=array.offset, events=[done])


def permute(queue, array, axes=None, wait_for=None):
    """Permutes the axes of the C-contiguous `array` in place (ipt_permute), as
    numpy.transpose(array, axes) orders them: axis i of the result is axis axes[i] of
    `array` (None: the axes reversed). 1 to 8 axes.

    Returns a new Array of the permuted shape over the same buffer and offset whose events
    hold the call's event (also added to `array`, whose shape is now stale). Otherwise as
    ipt.transpose: raises TypeError or ValueError for what it cannot take, ipt.Error for
    an error status; either way the buffer is unchanged.
    """
    _check_array(array, None, "ipt.permute")
    axes = checked_axes(array.ndim, axes, "ipt.permute")
    shape = tuple(array.shape[a] for a in axes)
    if array.base_data is None:
        return pyopencl.array.Array(queue or array.queue, shape, array.dtype,
                                    allocator=array.allocator)
    dims = (ctypes.c_size_t * array.ndim)(*array.shape)
    perm = (ctypes.c_size_t * array.ndim)(*axes)
    queue, done = _call(array, queue, wait_for, "ipt_permute",
                        lambda q, buffer, offset, count, wait, event: _lib.ipt_permute(
                            q, buffer, offset, array.ndim, dims, perm, array.dtype.itemsize,
                            count, wait, event))
    return pyopencl.array.Array(queue, shape, array.dtype, allocator=array.allocator,
                                data=array.base_data, offset=array.offset, events=[done])


# ipt_scalar_type of the numeric dtypes; any other dtype moves as raw elements.
_SCALAR_TYPES = {numpy.dtype(numpy.float32): (1, ctypes.c_float),
                 numpy.dtype(numpy.float64): (2, ctypes.c_double),
                 numpy.dtype(numpy.complex64): (3, ctypes.c_float * 2),
                 numpy.dtype(numpy.complex128): (4, ctypes.c_double * 2)}


def imatcopy(queue, array, ordering, trans, rows, cols, alpha=None, lda=None, ldb=None,
             wait_for=None):
    """B = alpha * op(A) in place, as MKL's mkl_?imatcopy (ipt_imatcopy), in the elements
    of the C-contiguous `array` (any shape: its flat elements), from its first one.

    ordering: 'R' or 'C'; trans: 'N', 'T', 'C' (conjugate transpose) or 'R' (conjugate);
    lda, ldb: the strides before and after (None: the rows' own length). float32, float64,
    complex64 and complex128 take an alpha (None: 1); other dtypes move as raw elements
    and take none. The array must hold the matrix's extent with its strides. Returns the
    call's event, also added to the array. Raises ipt.Error for an error status (the
    buffer then unchanged), TypeError or ValueError for what it cannot pass.
    """
    _check_array(array, None, "ipt.imatcopy")
    if not (isinstance(ordering, str) and len(ordering) == 1 and isinstance(trans, str)
            and len(trans) == 1):
        raise ValueError("ipt.imatcopy: ordering and trans are single letters")
    columns = ordering in "Cc"
    transposes = trans in "TtCc"
    view_cols = rows if columns else cols
    row_after = (cols if columns else rows) if transposes else view_cols
    lda = view_cols if lda is None else lda
    ldb = row_after if ldb is None else ldb
    if rows and cols and lda >= view_cols and ldb >= row_after:
        view_rows = cols if columns else rows
        rows_after = view_cols if transposes else view_rows
        extent = max((view_rows - 1) * lda + view_cols, (rows_after - 1) * ldb + row_after)
        if extent > array.size:
            raise ValueError("ipt.imatcopy: the matrix with its strides spans %d elements; "
                             "the array has %d" % (extent, array.size))
    scalar, ctype = _SCALAR_TYPES.get(array.dtype, (0, None))
    alpha_pointer = None
    if alpha is not None:
        if ctype is None:
            raise ValueError("ipt.imatcopy: dtype %s is not numeric: no alpha" % array.dtype)
        value = complex(alpha)
        if scalar <= 2 and value.imag != 0:
            raise ValueError("ipt.imatcopy: a complex alpha for real dtype %s" % array.dtype)
        scalar_value = ctype(value.real, value.imag) if scalar >= 3 else ctype(value.real)
        alpha_pointer = ctypes.cast(ctypes.pointer(scalar_value), ctypes.c_void_p)
    if array.base_data is None:
        return None
    _, done = _call(array, queue, wait_for, "ipt_imatcopy",
                    lambda q, buffer, offset, count, wait, event: _lib.ipt_imatcopy(
                        q, ordering.encode(), trans.encode(), rows, cols, alpha_pointer, buffer,
                        offset, lda, ldb, count, wait, event, array.dtype.itemsize, scalar))
    return done

