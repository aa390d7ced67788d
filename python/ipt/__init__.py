# SPDX-License-Identifier: Apache-2.0
"""libipt for pyopencl: transpose a matrix in place in its OpenCL buffer.

    import ipt
    t = ipt.transpose(queue, a)   # a: C-contiguous rows x cols pyopencl.array.Array
    # t: a cols x rows Array over the same buffer; t.events and a.events hold the event

Also ipt.transpose_batched(queue, a3)  (batch, rows, cols) -> (batch, cols, rows);
ipt.permute(queue, a, axes): a tensor's axes permuted in place, as numpy.transpose orders
them (NCHW -> NHWC: axes (0, 2, 3, 1));
ipt.imatcopy(queue, a, ordering, trans, rows, cols, alpha=None, lda=None, ldb=None):
MKL's mkl_?imatcopy on the array's elements;
ipt.plan(device, rows, cols, dtype, options=None) -> ipt.PlanInfo,
ipt.padded_size(device, rows, cols, dtype) -> bytes, ipt.warmup, ipt.clear_cache;
ipt.transpose_host(numpy_array, queue=None, scheme="auto", threads=0): a numpy array in
host memory transposed in place, through the queue's device or on the CPU.
ipt.cuda: PyTorch tensors and CuPy arrays transposed in place (import ipt.cuda; it needs
no pyopencl, which the calls above do).
Errors of the library raise ipt.Error (.status: an ipt.Status, .name, .message);
arguments it could not take raise TypeError or ValueError before it is called.

The package loads libipt over its C ABI with ctypes, from $IPT_LIBRARY if set, else
from where CMake built or installed it, else from the loader's search path;
ipt.library_path says which file was loaded. include/ipt/ipt.h documents every call.
"""

from ._errors import Error, Status
from ._library import path as library_path
from ._library import lib as _lib

try:
    import pyopencl as _pyopencl  # noqa: F401 (the calls on OpenCL arrays need it)
except ImportError as _error:
    # ipt.cuda works without pyopencl; the calls on pyopencl arrays say what they miss.
    _missing = str(_error)

    def _needs_pyopencl(name):
        def call(*args, **kwargs):
            raise ImportError("ipt.%s needs pyopencl (%s); ipt.cuda does not" % (name, _missing))
        call.__name__ = name
        return call

    for _name in ("transpose", "transpose_batched", "permute", "imatcopy", "transpose_host",
                  "plan", "padded_size", "warmup", "clear_cache"):
        globals()[_name] = _needs_pyopencl(_name)
    SEQUENCES = ELEMENT_SIZES = PlanInfo = PlanOptions = None
else:
    from ._host import transpose_host
    from ._plan import (SEQUENCES, PlanInfo, PlanOptions, clear_cache, padded_size, plan,
                        warmup)
    from ._transpose import ELEMENT_SIZES, imatcopy, permute, transpose, transpose_batched

__version__ = _lib.ipt_version_string().decode()

__all__ = ["transpose", "transpose_batched", "permute", "imatcopy", "transpose_host", "plan",
           "padded_size", "warmup", "clear_cache", "PlanOptions", "PlanInfo", "Error", "Status",
           "SEQUENCES", "ELEMENT_SIZES", "library_path"]
