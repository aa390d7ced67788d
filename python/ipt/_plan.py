# SPDX-License-Identifier: Apache-2.0
"""Plans, padded sizes and the kernel cache: the calls that take a device, not a buffer."""

import ctypes
import dataclasses
import numbers

import numpy
import pyopencl

from . import _background, _library
from ._errors import check

_lib = _library.lib
_SIZE_MAX = 2 ** (8 * ctypes.sizeof(ctypes.c_size_t)) - 1


def _sequence_names():
    """{name: enum ipt_sequence value}, from the library so that both stay in step."""
    names = {}
    for value in range(64):
        name = _lib.ipt_sequence_name(value).decode()
        if name == "unknown":
            break
        names[name] = value
    return names


SEQUENCES = _sequence_names()  # "auto", "square", "1", "2.1", ... "on-chip"
_SEQUENCE_OF_VALUE = {value: name for name, value in SEQUENCES.items()}
_PADDINGS = {"auto": 0, "off": 1}


def size_arg(name, value):
    """A size_t argument; ctypes would silently wrap a negative or too large int."""
    value = int(value) if isinstance(value, numbers.Integral) else value
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("ipt: %s must be an int, not %s" % (name, type(value).__name__))
    if not 0 <= value <= _SIZE_MAX:
        raise ValueError("ipt: %s = %d is out of range for size_t" % (name, value))
    return value


def itemsize_of(dtype):
    """The element size of a numpy dtype (or anything numpy.dtype accepts), or an int."""
    if isinstance(dtype, numbers.Integral) and not isinstance(dtype, bool):
        return size_arg("itemsize", dtype)
    return numpy.dtype(dtype).itemsize


def handle(name, value, kind):
    """The OpenCL handle of a pyopencl object of class `kind`, as an int."""
    if not isinstance(value, kind):
        raise TypeError("ipt: %s must be a pyopencl.%s, not %s"
                        % (name, kind.__name__, type(value).__name__))
    return value.int_ptr


@dataclasses.dataclass(frozen=True)
class PlanOptions:
    """struct ipt_plan_options: a caller-adjusted plan (0 fields mean automatic).

    sequence: one of SEQUENCES ("auto", "square", "1", "2.1", "2.2", "3.1", "3.2",
    "4.1", "4.2", "on-chip"); padding: "auto" or "off"; m, n: the factors;
    padded_rows, padded_cols: a padded shape; max_bytes: bytes from the offset a padded
    plan may borrow. include/ipt/ipt.h says what each means.
    """
    sequence: str = "auto"
    m: int = 0
    n: int = 0
    padding: str = "auto"
    padded_rows: int = 0
    padded_cols: int = 0
    max_bytes: int = 0

    def to_struct(self):
        if self.sequence not in SEQUENCES:
            raise ValueError("ipt: unknown sequence %r; one of %s"
                             % (self.sequence, ", ".join(SEQUENCES)))
        if self.padding not in _PADDINGS:
            raise ValueError("ipt: padding must be 'auto' or 'off', not %r" % (self.padding,))
        return _library.PlanOptionsStruct(
            SEQUENCES[self.sequence], size_arg("m", self.m), size_arg("n", self.n),
            _PADDINGS[self.padding], size_arg("padded_rows", self.padded_rows),
            size_arg("padded_cols", self.padded_cols), size_arg("max_bytes", self.max_bytes))


def options_pointer(options):
    if options is None:
        return None
    if not isinstance(options, PlanOptions):
        raise TypeError("ipt: options must be an ipt.PlanOptions or None")
    return ctypes.byref(options.to_struct())


@dataclasses.dataclass(frozen=True)
class PlanInfo:
    """struct ipt_plan_info: what a call runs (sequence is a SEQUENCES name)."""
    sequence: str
    m: int
    n: int
    padded_rows: int
    padded_cols: int
    num_stages: int      # kernels enqueued per call
    scratch_bytes: int   # device scratch allocated per call
    borrowed_bytes: int  # bytes past the matrix a call borrows and gives back
    description: str     # the plan in words


def plan(device, rows, cols, dtype, options=None):
    """The plan libipt makes for a rows x cols matrix of `dtype` (or an itemsize) on a
    pyopencl.Device; `options` an ipt.PlanOptions (None: automatic). Raises ipt.Error."""
    info = _library.PlanInfoStruct()
    check(_lib.ipt_plan(handle("device", device, pyopencl.Device), size_arg("rows", rows),
                        size_arg("cols", cols), itemsize_of(dtype), options_pointer(options),
                        ctypes.byref(info)), "ipt_plan")
    return PlanInfo(_SEQUENCE_OF_VALUE.get(info.sequence, str(info.sequence)), info.m, info.n,
                    info.padded_rows, info.padded_cols, info.num_stages, info.scratch_bytes,
                    info.borrowed_bytes, info.description.decode("utf-8", "replace"))


def padded_size(device, rows, cols, dtype):
    """Bytes from the matrix's offset that let the fastest plan pad inside the buffer
    (rows * cols * itemsize, or up to 0.5% more). Raises ipt.Error."""
    size = ctypes.c_size_t()
    check(_lib.ipt_padded_size(handle("device", device, pyopencl.Device), size_arg("rows", rows),
                               size_arg("cols", cols), itemsize_of(dtype), ctypes.byref(size)),
          "ipt_padded_size")
    return size.value


def warmup(context, device, dtype, wait=True):
    """Builds now every kernel that calls on `dtype` elements can launch, so that no later
    call of any shape compiles. wait=False returns at once a concurrent.futures.Future that
    is done when the kernels are built (its result() raises what the warm-up raised): the
    build runs on a thread of its own, calls made meanwhile wait only for the kernels they
    launch, and the process waits for it before it exits."""
    args = (handle("context", context, pyopencl.Context),
            handle("device", device, pyopencl.Device), itemsize_of(dtype))

    def build(owners=(context, device)):  # alive until the build ends: their handles too
        check(_lib.ipt_warmup(*args), "ipt_warmup")

    if wait:
        return build()
    return _background.started(build, "ipt.warmup")


def clear_cache():
    """Releases the library's compiled programs, plans and kept scratch buffers."""
    check(_lib.ipt_clear_cache(), "ipt_clear_cache")
