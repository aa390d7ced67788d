# SPDX-License-Identifier: Apache-2.0
"""PyTorch tensors and CuPy arrays transposed in place by libipt, through OpenCL's view of
CUDA memory (cl_khr_external_memory_opaque_fd).

    import torch, ipt.cuda
    x = ipt.cuda.empty((rows, cols), torch.float32)   # an ordinary torch.Tensor
    x.copy_(...)                                       # fill it as usual
    y = ipt.cuda.transpose(x)                          # (cols, rows), the same memory

OpenCL can only reach CUDA memory that was allocated exportable: one cuMemCreate
allocation with a POSIX file descriptor. PyTorch's and CuPy's allocators make none, so
the arrays that ipt.cuda transposes come from ipt.cuda.empty / zeros (like="torch", the
default, or "cupy"): one allocation each, wrapped through the CUDA array interface into
a tensor or array that PyTorch or CuPy then treat as any other (views, slicing, their
kernels), and that is freed when the last of them goes. Any other array is refused with
NotExportableError; nothing is ever copied behind your back.

ipt.cuda.transpose(x) / permute(x, axes) wait for the work queued on the current stream
(of PyTorch or CuPy), transpose, and return when the result is in place, so work queued
after them sees it: NVIDIA's OpenCL imports semaphores but cannot export one, and CUDA
only imports them, so the two cannot order each other on the GPU; the host waits
instead. The array passed in keeps its old shape and is stale; use the one returned.
Every call needs the CUDA driver (libcuda, through ctypes) and an OpenCL platform that
sees the same GPU; `import ipt.cuda` works without either, and available() says why it
cannot work.
"""

import ctypes
import sys
import threading
import weakref

from . import _background, _cuda_driver, _library, _opencl
from ._axes import checked_axes
from ._cuda_driver import CudaError, CudaUnavailableError
from ._errors import check

__all__ = ["available", "empty", "zeros", "transpose", "permute", "warmup", "is_exportable",
           "NotExportableError", "CudaUnavailableError", "CudaError"]

ELEMENT_SIZES = (1, 2, 4, 8, 16)


class NotExportableError(ValueError):
    """The array's memory is not an allocation that OpenCL can import."""


_allocations = weakref.WeakValueDictionary()  # pointer -> _cuda_driver.Allocation
_devices = {}  # CUDA ordinal -> (context, device, queue) of OpenCL
_lock = threading.Lock()
_last_allocation = None  # a weak reference to the allocation found last: calls repeat


def _remember(allocation):
    global _last_allocation
    _last_allocation = weakref.ref(allocation)


def available(device=0):
    """(True, "") when ipt.cuda can work here on CUDA device `device` (an ordinal): the
    CUDA driver loads and an OpenCL device is that GPU; else (False, why)."""
    try:
        _cuda_driver.library()
        _opencl_of(int(device))
    except (CudaUnavailableError, CudaError, _opencl.OpenCLError, OSError) as error:
        return False, str(error)
    return True, ""


# --- arrays ----------------------------------------------------------------------------

class _Memory:
    """An Allocation seen through the CUDA array interface (version 3) as `nbytes` bytes:
    PyTorch and CuPy keep this object, and with it the allocation, alive for as long as
    any tensor or array over it lives."""

    def __init__(self, allocation, nbytes):
        self.allocation = allocation
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1",
                                         "data": (allocation.pointer, False), "version": 3,
                                         "strides": None, "stream": None}


def _framework(like):
    if like == "torch":
        import torch
        return torch
    if like == "cupy":
        import cupy
        return cupy
    raise ValueError("ipt.cuda: like=%r; expected 'torch' or 'cupy'" % (like,))


def empty(shape, dtype, like="torch", device=None):
    """An uninitialised C-contiguous array of `shape` and `dtype` in one exportable
    allocation: a torch.Tensor (like="torch"; dtype a torch.dtype) or a cupy.ndarray
    (like="cupy"; dtype anything numpy takes), on CUDA device `device` (an ordinal, or for
    PyTorch also a torch.device or "cuda:N"; None: the framework's current device). Raises
    CudaUnavailableError without a CUDA driver."""
    _cuda_driver.library()
    module = _framework(like)
    shape = tuple(int(n) for n in (shape if hasattr(shape, "__len__") else (shape,)))
    if any(n < 0 for n in shape):
        raise ValueError("ipt.cuda.empty: negative extent in shape %s" % (shape,))
    count = 1
    for n in shape:
        count *= n
    if like == "torch":
        if not isinstance(dtype, module.dtype):
            raise TypeError("ipt.cuda.empty: like='torch' takes a torch.dtype, not %r" % (dtype,))
        itemsize = module.empty((), dtype=dtype).element_size()
        index = device if device is None or isinstance(device, int) else \
            module.device(device).index
        ordinal = module.cuda.current_device() if index is None else index
    else:
        import numpy
        dtype = numpy.dtype(dtype)
        itemsize = dtype.itemsize
        ordinal = module.cuda.Device().id if device is None else int(device)
    nbytes = count * itemsize
    allocation = _cuda_driver.Allocation(nbytes, ordinal)
    memory = _Memory(allocation, nbytes)
    with _lock:
        _allocations[allocation.pointer] = allocation
    if like == "torch":
        raw = module.as_tensor(memory, device="cuda:%d" % ordinal)
        return raw.view(dtype).view(shape)
    with module.cuda.Device(ordinal):
        raw = module.asarray(memory)
    return raw.view(dtype).reshape(shape)


def zeros(shape, dtype, like="torch", device=None):
    """As empty(), filled with zeros."""
    array = empty(shape, dtype, like, device)
    if like == "torch":
        array.zero_()
    else:
        array.fill(0)
    return array


# --- the arrays ipt.cuda takes -----------------------------------------------------------

class _Array:
    """What a call needs of a torch.Tensor or cupy.ndarray."""

    def __init__(self, x, what):
        torch = sys.modules.get("torch")
        cupy = sys.modules.get("cupy")
        self.module = None  # the framework's module
        if torch is not None and isinstance(x, torch.Tensor):
            if not x.is_cuda:
                raise ValueError("%s: the tensor is on %s, not a CUDA device" % (what, x.device))
            self.kind, self.module = "torch", torch
            self.pointer, self.device = x.data_ptr(), x.device.index
            self.contiguous, self.itemsize = x.is_contiguous(), x.element_size()
            self.shape = tuple(x.shape)
        elif cupy is not None and isinstance(x, cupy.ndarray):
            self.kind, self.module = "cupy", cupy
            self.pointer, self.device = x.data.ptr, x.device.id
            self.contiguous, self.itemsize = x.flags.c_contiguous, x.dtype.itemsize
            self.shape = tuple(x.shape)
        else:
            raise TypeError("%s: expected a CUDA torch.Tensor or cupy.ndarray, not %s"
                            % (what, type(x).__name__))
        self.x = x
        self.count = 1
        for n in self.shape:
            self.count *= n
        if not self.contiguous:
            raise ValueError("%s: the array must be C-contiguous (shape %s)" % (what, self.shape))
        if self.itemsize not in ELEMENT_SIZES:
            raise ValueError("%s: %d-byte elements; libipt moves elements of %s bytes"
                             % (what, self.itemsize, ", ".join(map(str, ELEMENT_SIZES))))

    def synchronize(self):
        """Waits for the work queued on the framework's current stream of the device."""
        # A query first: most calls find the stream idle, and the query costs less.
        if self.kind == "torch":
            # The raw handle where PyTorch offers it (the Python Stream object alone took
            # 5-8 us, a fifth of a small call's fixed cost).
            # It names a stream of this thread's current context, which is the tensor's
            # device's only when that is the current device; else, or on a thread without
            # a context, PyTorch's own path.
            raw = getattr(self.module._C, "_cuda_getCurrentRawStream", None)
            if raw is not None and self.module.cuda.current_device() == self.device:
                try:
                    _cuda_driver.wait_for_stream(raw(self.device))
                    return
                except CudaError:
                    pass
            stream = self.module.cuda.current_stream(self.device)
            if not stream.query():
                stream.synchronize()
        else:
            with self.module.cuda.Device(self.device):
                stream = self.module.cuda.get_current_stream()
                if not stream.done:
                    stream.synchronize()

    def reshaped(self, shape):
        """The array of `shape` over the same memory."""
        if self.kind == "torch":
            return self.x.view(shape)
        return self.module.ndarray(shape, self.x.dtype, memptr=self.x.data)


def _allocation_of(array, what):
    """The ipt.cuda allocation holding the whole array, or NotExportableError."""
    end = array.pointer + array.count * array.itemsize
    allocation = _last_allocation() if _last_allocation is not None else None
    if allocation is not None and allocation.pointer <= array.pointer and \
            end <= allocation.pointer + allocation.size:
        return allocation
    with _lock:
        for allocation in list(_allocations.values()):
            if allocation.pointer <= array.pointer and end <= allocation.pointer + allocation.size:
                _remember(allocation)
                return allocation
    how = ("allocate it with ipt.cuda.empty(shape, dtype, like=%r) (or copy it into one) and "
           "transpose that" % array.kind)
    if _cuda_driver.is_virtual_memory(array.pointer):
        raise NotExportableError(
            "%s: the array lies in CUDA virtual memory that is not one exportable allocation "
            "(PyTorch's expandable segments map 20 MB pieces, each its own): %s" % (what, how))
    raise NotExportableError(
        "%s: the array's memory was not allocated exportable (cudaMalloc, as PyTorch's and "
        "CuPy's allocators do, gives OpenCL no handle to import): %s" % (what, how))


def is_exportable(x):
    """Whether ipt.cuda can transpose `x` in place: an ipt.cuda allocation holds it (or it
    is empty)."""
    array = _Array(x, "ipt.cuda.is_exportable")
    if array.count == 0:
        return True  # nothing to move
    try:
        _allocation_of(array, "ipt.cuda.is_exportable")
    except NotExportableError:
        return False
    return True


# --- OpenCL ------------------------------------------------------------------------------

def _opencl_of(ordinal):
    """(context, device, queue) of the OpenCL device that is CUDA device `ordinal`, made
    once per process."""
    with _lock:
        found = _devices.get(ordinal)
        if found is not None:
            return found
        uuid = _cuda_driver.device_uuid(ordinal)
        devices = _opencl.gpu_devices()
        for _, _, device, device_uuid in devices:
            if device_uuid == uuid:
                context, queue = _opencl.create_context_and_queue(device)
                _devices[ordinal] = (context, device, queue)
                return _devices[ordinal]
        raise CudaUnavailableError(
            "ipt.cuda: no OpenCL device is CUDA device %d (OpenCL GPUs: %s); is NVIDIA's "
            "OpenCL driver registered (/etc/OpenCL/vendors/nvidia.icd)?"
            % (ordinal, ", ".join("%s | %s" % (p, d) for p, d, _, _ in devices) or "none"))


def _buffer_of(allocation, context, device):
    """The allocation's OpenCL buffer, imported on first use and released with it."""
    with _lock:
        buffer = getattr(allocation, "cl_buffer", None)
        if buffer is not None:
            return buffer
        out = _library.cl_handle()
        check(_library.lib.ipt_import_memory_fd(context, device, allocation.fd, allocation.size,
                                                ctypes.byref(out)), "ipt_import_memory_fd")
        allocation.cl_buffer = out.value
        weakref.finalize(allocation, _opencl.release_buffer, out.value)
        return out.value


def _opencl_for(allocation):
    """(queue, buffer) of the allocation, found once and then kept on it: a call's fixed
    cost is what keeps small calls from the speed of the same call on a cl_mem."""
    found = getattr(allocation, "opencl", None)
    if found is None:
        context, device, queue = _opencl_of(allocation.device)
        found = allocation.opencl = (queue, _buffer_of(allocation, context, device))
    return found


def _run(x, what, call):
    """Checks x, waits for its stream, runs call(queue, buffer, offset, itemsize, event)
    (a libipt function's status) and waits for its event."""
    array = _Array(x, what)
    _cuda_driver.library()
    if array.count == 0:
        return array
    allocation = _allocation_of(array, what)
    queue, buffer = _opencl_for(allocation)
    offset = array.pointer - allocation.pointer
    if offset % array.itemsize:
        raise ValueError("%s: the array starts %d bytes into its allocation, not at a whole "
                         "%d-byte element" % (what, offset, array.itemsize))
    array.synchronize()
    event = _library.cl_handle()
    status, function = call(queue, buffer, offset // array.itemsize, array.itemsize,
                            ctypes.byref(event))
    if event.value:
        # A rolled-back call's event says when the bytes are back: wait for that too.
        _opencl.wait_and_release(event.value)
    check(status, function)
    return array


def transpose(x):
    """Transposes the C-contiguous 2-D CUDA tensor or array `x` (rows x cols) in place;
    returns the (cols, rows) one over the same memory. `x` must come from ipt.cuda.empty
    or zeros (NotExportableError otherwise). Waits for the current stream's work on the
    device first and returns once the result is in place. Raises ipt.Error for a libipt
    error status (the memory then unchanged, but for ROLLED_BACK, whose bytes are back by
    the time it is raised, and BUFFER_UNDEFINED), TypeError or ValueError for what it
    cannot take, CudaUnavailableError without a CUDA driver or OpenCL device. During the
    call libipt may use the allocation's bytes past the array as room, restoring them
    before it returns: keep other streams off other arrays of the same allocation."""
    what = "ipt.cuda.transpose"
    if getattr(x, "ndim", None) != 2:
        _Array(x, what)  # the type error first
        raise ValueError("%s: expected a 2-D array, got shape %s" % (what, tuple(x.shape)))
    rows, cols = x.shape
    array = _run(x, what, lambda queue, buffer, offset, itemsize, event: (
        _library.lib.ipt_transpose(queue, buffer, offset, rows, cols, 0, None, event, itemsize),
        "ipt_transpose"))
    return array.reshaped((cols, rows))


def permute(x, axes=None):
    """Permutes the axes of the C-contiguous CUDA tensor or array `x` in place, as
    numpy.transpose(x, axes) orders them (None: reversed; 1 to 8 axes); returns the array
    of the permuted shape over the same memory. Otherwise as transpose()."""
    what = "ipt.cuda.permute"
    ndim = len(_Array(x, what).shape)
    axes = checked_axes(ndim, axes, what)
    shape = tuple(x.shape)
    dims = (ctypes.c_size_t * ndim)(*shape)
    perm = (ctypes.c_size_t * ndim)(*axes)
    array = _run(x, what, lambda queue, buffer, offset, itemsize, event: (
        _library.lib.ipt_permute(queue, buffer, offset, ndim, dims, perm, itemsize, 0, None,
                                 event), "ipt_permute"))
    return array.reshaped(tuple(shape[a] for a in axes))


# --- warm-up -----------------------------------------------------------------------------

def _itemsize(dtype, what):
    """The element size of `dtype`: a size in bytes, a torch.dtype, or anything
    numpy.dtype takes (CuPy's dtypes are numpy's)."""
    if isinstance(dtype, int) and not isinstance(dtype, bool):
        size = dtype
    else:
        size = getattr(dtype, "itemsize", None)  # numpy.dtype; torch.dtype from PyTorch 2.1
        if not isinstance(size, int):
            try:
                import numpy
                size = numpy.dtype(dtype).itemsize
            except (ImportError, TypeError):
                raise TypeError("%s: %r is neither an element size nor a dtype" % (what, dtype))
    if size not in ELEMENT_SIZES:
        raise ValueError("%s: elements of %d bytes; libipt moves elements of %s bytes"
                         % (what, size, ", ".join(str(n) for n in ELEMENT_SIZES)))
    return size


def warmup(dtype, device=0, wait=True):
    """Builds now every kernel that transpose() and permute() can launch on elements of
    `dtype` (a torch.dtype, a NumPy/CuPy dtype or a size in bytes) on CUDA device `device`
    (an ordinal or a torch.device; None or one without an index: device 0), so that no later
    call compiles (ipt_warmup: seconds on a machine where NVIDIA's compute cache is cold, a
    fraction of one once it is filled; docs/latency-and-cache.md). wait=False returns at
    once a concurrent.futures.Future that is done when the kernels are built, its result()
    raising what the warm-up raised: the build runs on a thread of its own while your
    start-up goes on, calls made meanwhile wait only for the kernels they launch, and the
    process waits for it before it exits. Raises CudaUnavailableError without a CUDA
    driver or OpenCL device."""
    what = "ipt.cuda.warmup"
    itemsize = _itemsize(dtype, what)
    ordinal = getattr(device, "index", device)
    if ordinal is None:
        ordinal = 0
    if not isinstance(ordinal, int) or isinstance(ordinal, bool) or ordinal < 0:
        raise TypeError("%s: device %r is not a CUDA device ordinal" % (what, device))
    _cuda_driver.library()

    def build():
        context, cl_device, _ = _opencl_of(ordinal)
        check(_library.lib.ipt_warmup(context, cl_device, itemsize), "ipt_warmup")

    if wait:
        build()
        return None
    return _background.started(build, what)
