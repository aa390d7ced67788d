# SPDX-License-Identifier: Apache-2.0
"""ipt.transpose_host: a numpy array in host memory transposed in place by
ipt_transpose_host, through an OpenCL device or on the CPU."""

import ctypes

import numpy

import pyopencl

from . import _library
from ._errors import check
from ._plan import handle
from ._transpose import ELEMENT_SIZES

_lib = _library.lib
SCHEMES = {"auto": 0, "device": 1, "cpu": 2}  # enum ipt_host_scheme
PINNING = {"auto": 0, "off": 1, "on": 2}  # enum ipt_host_pinning


def transpose_host(array, queue=None, scheme="auto", threads=0, pin="auto", slices=0):
    """Transposes the C-contiguous, writeable 2-D numpy `array` (rows x cols) in place.

    Returns a (cols, rows) view of the same memory, which then holds the transpose;
    `array` itself keeps its stale shape. Blocks until done. `queue`: a
    pyopencl.CommandQueue whose device may do the work (None: the CPU only); `scheme`:
    "auto", "device" or "cpu"; `threads`: the CPU path's (0: one per hardware thread);
    `pin`: "auto" (from 4 MiB), "on" or "off": whether the device path lets the driver pin
    the array's memory for its transfers (the synchronous scheme); `slices`: the device
    path's Q (0: the library's choice, 1: the synchronous scheme, 2 to 16: the
    asynchronous scheme on that many queues).
    Raises TypeError or ValueError for what it cannot take, ipt.Error for an error status;
    either way the array is unchanged, except with BUFFER_UNDEFINED (partly written).
    """
    if not isinstance(array, numpy.ndarray):
        raise TypeError("ipt.transpose_host: expected a numpy.ndarray, not %s"
                        % type(array).__name__)
    if array.ndim != 2:
        raise ValueError("ipt.transpose_host: expected a 2-D array, got shape %s"
                         % (array.shape,))
    if not array.flags.c_contiguous or not array.flags.writeable:
        raise ValueError("ipt.transpose_host: the array must be C-contiguous and writeable")
    if array.dtype.hasobject or array.dtype.itemsize not in ELEMENT_SIZES:
        raise ValueError("ipt.transpose_host: dtype %s has %d-byte elements; libipt moves "
                         "elements of %s bytes" % (array.dtype, array.dtype.itemsize,
                                                   ", ".join(map(str, ELEMENT_SIZES))))
    if scheme not in SCHEMES:
        raise ValueError("ipt.transpose_host: scheme must be one of %s, not %r"
                         % (", ".join(sorted(SCHEMES)), scheme))
    if pin not in PINNING:
        raise ValueError("ipt.transpose_host: pin must be one of %s, not %r"
                         % (", ".join(sorted(PINNING)), pin))
    if threads < 0:
        raise ValueError("ipt.transpose_host: threads must be 0 or more")
    if slices < 0:
        raise ValueError("ipt.transpose_host: slices must be 0 or more")
    queue_handle = None if queue is None else handle("queue", queue, pyopencl.CommandQueue)
    rows, cols = array.shape
    options = _library.HostOptionsStruct(SCHEMES[scheme], threads, PINNING[pin], slices)
    check(_lib.ipt_transpose_host(queue_handle, array.ctypes.data_as(ctypes.c_void_p), rows,
                                  cols, array.dtype.itemsize, ctypes.byref(options)),
          "ipt_transpose_host")
    return array.reshape(-1).reshape(cols, rows)
