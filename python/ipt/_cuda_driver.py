# SPDX-License-Identifier: Apache-2.0
"""The CUDA driver calls ipt.cuda makes, through ctypes on libcuda (no CUDA toolkit, no
cuda-python needed): exportable allocations (cuMemCreate with a POSIX file descriptor
handle) and the device's UUID."""

import ctypes
import os

# The driver library; a test points it elsewhere to see the path without a driver.
LIBRARY = "libcuda.so.1"

CUdeviceptr = ctypes.c_uint64
CUhandle = ctypes.c_uint64
CU_MEM_ALLOCATION_TYPE_PINNED = 1
CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1
CU_MEM_LOCATION_TYPE_DEVICE = 1
CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3
CU_MEM_ALLOC_GRANULARITY_RECOMMENDED = 1


class Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class AllocationProp(ctypes.Structure):  # CUmemAllocationProp
    _fields_ = [("type", ctypes.c_int), ("requestedHandleTypes", ctypes.c_int),
                ("location", Location), ("win32HandleMetaData", ctypes.c_void_p),
                ("compressionType", ctypes.c_ubyte), ("gpuDirectRDMACapable", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class AccessDesc(ctypes.Structure):  # CUmemAccessDesc
    _fields_ = [("location", Location), ("flags", ctypes.c_int)]


class CudaUnavailableError(RuntimeError):
    """The CUDA driver is not there, or has no device: ipt.cuda cannot work here."""


class CudaError(RuntimeError):
    """A CUDA driver call failed (.code: its CUresult)."""

    def __init__(self, what, code, text):
        self.code = code
        super().__init__("%s failed with CUDA error %d (%s)" % (what, code, text))


_lib = None
_load_error = None


def library():
    """libcuda, initialised; CudaUnavailableError saying why when it cannot be."""
    global _lib, _load_error
    if _lib is not None:
        return _lib
    if _load_error is None:
        try:
            lib = ctypes.CDLL(LIBRARY)
            _declare(lib)
            code = lib.cuInit(0)
            if code != 0:
                raise CudaUnavailableError("cuInit failed with CUDA error %d" % code)
            _lib = lib
            return lib
        except OSError as error:
            _load_error = "the CUDA driver (%s) cannot be loaded: %s" % (LIBRARY, error)
        except CudaUnavailableError as error:
            _load_error = str(error)
    raise CudaUnavailableError("ipt.cuda: " + _load_error)


def reset():
    """Forgets the loaded driver and its error (tests)."""
    global _lib, _load_error
    _lib = None
    _load_error = None


def _declare(lib):
    p = ctypes.POINTER
    signatures = {
        "cuInit": [ctypes.c_uint],
        "cuGetErrorString": [ctypes.c_int, p(ctypes.c_char_p)],
        "cuDeviceGet": [p(ctypes.c_int), ctypes.c_int],
        "cuDeviceGetUuid": [ctypes.c_char * 16, ctypes.c_int],
        "cuCtxGetCurrent": [p(ctypes.c_void_p)],
        "cuCtxSetCurrent": [ctypes.c_void_p],
        "cuCtxSynchronize": [],
        "cuDevicePrimaryCtxRetain": [p(ctypes.c_void_p), ctypes.c_int],
        "cuMemGetAllocationGranularity": [p(ctypes.c_size_t), p(AllocationProp), ctypes.c_int],
        "cuMemCreate": [p(CUhandle), ctypes.c_size_t, p(AllocationProp), ctypes.c_uint64],
        "cuMemRelease": [CUhandle],
        "cuMemAddressReserve": [p(CUdeviceptr), ctypes.c_size_t, ctypes.c_size_t, CUdeviceptr,
                                ctypes.c_uint64],
        "cuMemAddressFree": [CUdeviceptr, ctypes.c_size_t],
        "cuMemMap": [CUdeviceptr, ctypes.c_size_t, ctypes.c_size_t, CUhandle, ctypes.c_uint64],
        "cuMemUnmap": [CUdeviceptr, ctypes.c_size_t],
        "cuMemSetAccess": [CUdeviceptr, ctypes.c_size_t, p(AccessDesc), ctypes.c_size_t],
        "cuMemExportToShareableHandle": [ctypes.c_void_p, CUhandle, ctypes.c_int,
                                         ctypes.c_uint64],
        "cuMemRetainAllocationHandle": [p(CUhandle), ctypes.c_void_p],
        "cuStreamQuery": [ctypes.c_void_p],
        "cuStreamSynchronize": [ctypes.c_void_p],
    }
    for name, argtypes in signatures.items():
        function = getattr(lib, name)
        function.argtypes = argtypes
        function.restype = ctypes.c_int
    # Context switching for free(), by their versioned names; free() does without them
    # where a driver lacks one.
    optional = {
        "cuCtxPushCurrent_v2": [ctypes.c_void_p],
        "cuCtxPopCurrent_v2": [p(ctypes.c_void_p)],
        "cuDevicePrimaryCtxRelease_v2": [ctypes.c_int],
    }
    for name, argtypes in optional.items():
        function = getattr(lib, name, None)
        if function is not None:
            function.argtypes = argtypes
            function.restype = ctypes.c_int


def check(code, what):
    if code != 0:
        text = ctypes.c_char_p()
        library().cuGetErrorString(code, ctypes.byref(text))
        raise CudaError(what, code, (text.value or b"unknown").decode())


def ensure_context(device):
    """Makes the device's primary context current on this thread when none is (PyTorch and
    CuPy make it current on first use; the allocation calls need one)."""
    lib = library()
    current = ctypes.c_void_p()
    check(lib.cuCtxGetCurrent(ctypes.byref(current)), "cuCtxGetCurrent")
    if current.value:
        return
    context = ctypes.c_void_p()
    check(lib.cuDevicePrimaryCtxRetain(ctypes.byref(context), device), "cuDevicePrimaryCtxRetain")
    check(lib.cuCtxSetCurrent(context), "cuCtxSetCurrent")


def synchronize_device(lib, ordinal):
    """Waits for the work of CUDA device `ordinal`'s primary context (PyTorch's and CuPy's),
    whatever context this thread has current, or none."""
    push = getattr(lib, "cuCtxPushCurrent_v2", None)
    pop = getattr(lib, "cuCtxPopCurrent_v2", None)
    release = getattr(lib, "cuDevicePrimaryCtxRelease_v2", None)
    device = ctypes.c_int()
    context = ctypes.c_void_p()
    if None in (push, pop, release) or lib.cuDeviceGet(ctypes.byref(device), ordinal) != 0 or \
            lib.cuDevicePrimaryCtxRetain(ctypes.byref(context), device.value) != 0:
        lib.cuCtxSynchronize()  # the current context's work, the best left to do
        return
    try:
        if push(context) == 0:
            try:
                lib.cuCtxSynchronize()
            finally:
                pop(ctypes.byref(ctypes.c_void_p()))
    finally:
        release(device.value)


def device_uuid(device):
    """The 16 bytes of the CUDA device's UUID (as CL_DEVICE_UUID_KHR gives OpenCL's)."""
    lib = library()
    ordinal = ctypes.c_int()
    check(lib.cuDeviceGet(ctypes.byref(ordinal), device), "cuDeviceGet")
    uuid = (ctypes.c_char * 16)()
    check(lib.cuDeviceGetUuid(uuid, ordinal.value), "cuDeviceGetUuid")
    return bytes(uuid.raw)


CUDA_ERROR_NOT_READY = 600


def wait_for_stream(stream):
    """Returns once the work queued on the CUDA stream `stream` (a CUstream handle of the
    current context; 0: its legacy default stream) is done: a query first, since most
    calls find the stream idle and the query costs less than a synchronize."""
    lib = library()
    code = lib.cuStreamQuery(stream)
    if code == CUDA_ERROR_NOT_READY:
        code = lib.cuStreamSynchronize(stream)
    check(code, "cuStreamSynchronize")


def is_virtual_memory(pointer):
    """Whether `pointer` lies in memory mapped with cuMemMap (PyTorch's expandable segments
    are), as opposed to cudaMalloc's."""
    handle = CUhandle()
    if library().cuMemRetainAllocationHandle(ctypes.byref(handle), ctypes.c_void_p(pointer)) != 0:
        return False
    library().cuMemRelease(handle)
    return True


class Allocation:
    """One exportable allocation of at least `nbytes` on CUDA device `device`: physical
    memory (cuMemCreate, POSIX file descriptor handle), mapped read-write at .pointer, and
    its file descriptor .fd. free() (or the garbage collector) gives it back."""

    def __init__(self, nbytes, device):
        lib = library()
        ensure_context(device)
        self._lib = lib  # free() needs it even after reset()
        self.device = device
        self.pointer = 0
        self.fd = -1
        self._handle = None
        self._mapped = False
        prop = AllocationProp()
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED
        prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
        prop.location = Location(CU_MEM_LOCATION_TYPE_DEVICE, device)
        granularity = ctypes.c_size_t()
        check(lib.cuMemGetAllocationGranularity(ctypes.byref(granularity), ctypes.byref(prop),
                                                CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
              "cuMemGetAllocationGranularity")
        unit = granularity.value
        self.size = max(1, (nbytes + unit - 1) // unit) * unit
        try:
            handle = CUhandle()
            check(lib.cuMemCreate(ctypes.byref(handle), self.size, ctypes.byref(prop), 0),
                  "cuMemCreate(%d bytes)" % self.size)
            self._handle = handle.value
            pointer = CUdeviceptr()
            check(lib.cuMemAddressReserve(ctypes.byref(pointer), self.size, 0, 0, 0),
                  "cuMemAddressReserve")
            self.pointer = pointer.value
            check(lib.cuMemMap(self.pointer, self.size, 0, self._handle, 0), "cuMemMap")
            self._mapped = True
            access = AccessDesc(Location(CU_MEM_LOCATION_TYPE_DEVICE, device),
                                CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            check(lib.cuMemSetAccess(self.pointer, self.size, ctypes.byref(access), 1),
                  "cuMemSetAccess")
            fd = ctypes.c_int(-1)
            check(lib.cuMemExportToShareableHandle(ctypes.byref(fd), self._handle,
                                                   CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                  "cuMemExportToShareableHandle")
            self.fd = fd.value
        except BaseException:
            self.free()
            raise

    def free(self):
        """Unmaps and releases the memory, after the device's queued work (idempotent)."""
        lib = getattr(self, "_lib", None)
        if lib is None:
            return
        if self._mapped:
            # Work queued on any stream of the device may still use the memory, and this
            # may run on any thread (the garbage collector's).
            synchronize_device(lib, self.device)
            lib.cuMemUnmap(self.pointer, self.size)
            self._mapped = False
        if self.pointer:
            lib.cuMemAddressFree(self.pointer, self.size)
            self.pointer = 0
        if self._handle is not None:
            lib.cuMemRelease(self._handle)
            self._handle = None
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __del__(self):
        try:
            self.free()
        except Exception:  # the interpreter may be shutting down
            pass
