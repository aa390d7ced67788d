"""ipt.transpose: a pyopencl.array.Array transposed in place by ipt_transpose."""

import ctypes

import pyopencl
import pyopencl.array

from . import _library
from ._errors import Status, check
from ._plan import handle, options_pointer

_lib = _library.lib
ELEMENT_SIZES = (1, 2, 4, 8, 16)


def _check_array(array):
    """Refuses, before the library sees it, what it cannot take or would misread."""
    if not isinstance(array, pyopencl.array.Array):
        raise TypeError("ipt.transpose: expected a pyopencl.array.Array, not %s"
                        % type(array).__name__)
    if array.ndim != 2:
        raise ValueError("ipt.transpose: expected a 2-D array, got shape %s" % (array.shape,))
    # The library reads rows * cols consecutive elements: any other stride would make it
    # transpose bytes that are not the array's.
    if not array.flags.c_contiguous:
        raise ValueError("ipt.transpose: the array must be C-contiguous (strides %s for "
                         "shape %s)" % (array.strides, array.shape))
    if array.dtype.hasobject or array.dtype.itemsize not in ELEMENT_SIZES:
        raise ValueError("ipt.transpose: dtype %s has %d-byte elements; libipt moves "
                         "elements of %s bytes" % (array.dtype, array.dtype.itemsize,
                                                   ", ".join(map(str, ELEMENT_SIZES))))
    # The C API takes the offset in elements.
    if array.offset % array.dtype.itemsize:
        raise ValueError("ipt.transpose: the array's offset (%d bytes) is not a multiple of "
                         "its %d-byte elements" % (array.offset, array.dtype.itemsize))


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
