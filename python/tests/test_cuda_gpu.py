# SPDX-License-Identifier: Apache-2.0
"""ipt.cuda on a GPU: PyTorch tensors and CuPy arrays transposed and permuted in place,
every element checked. Needs PyTorch or CuPy on a CUDA device that an OpenCL platform also
sees (NVIDIA's, registered); ctest runs it as its own test (python_cuda), which reports
itself skipped, saying why, where that is missing. IPT_CUDA_LARGE=1 adds a float32 tensor
of 62% of the GPU's memory. The GPU suite (tools/device/verify_gpu.sh) runs it on NVIDIA."""

import ctypes
import gc
import os
import weakref

import numpy
import pytest

import ipt
import ipt.cuda
from ipt import _library, _opencl

FRAMEWORKS = ("torch", "cupy")


# --- on a CUDA device --------------------------------------------------------------------

def _framework_or_skip(like):
    module = pytest.importorskip(like)
    ok, why = ipt.cuda.available()
    if not ok:
        pytest.skip(why)
    if like == "torch" and not module.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    if like == "cupy":
        try:
            module.cuda.runtime.getDeviceCount()
        except Exception as error:  # CuPy raises its own CUDARuntimeError
            pytest.skip("CuPy sees no CUDA device: %s" % error)
    try:
        ipt.cuda._opencl_of(0)
    except ipt.cuda.CudaUnavailableError as error:
        pytest.skip(str(error))
    return module


# (torch dtype name, numpy dtype) by element size
DTYPES = [("uint8", numpy.uint8), ("float16", numpy.float16), ("float32", numpy.float32),
          ("float64", numpy.float64), ("complex128", numpy.complex128)]


def _exportable(like, module, host):
    """An ipt.cuda array holding the numpy array `host`."""
    if like == "torch":
        x = ipt.cuda.empty(host.shape, getattr(module, numpy.dtype(host.dtype).name), like)
        x.view(-1).view(module.uint8).copy_(module.from_numpy(host.reshape(-1).view(numpy.uint8)))
        return x
    x = ipt.cuda.empty(host.shape, host.dtype, like)
    x.set(host)
    return x


def _to_host(like, x):
    if like == "torch":
        return x.contiguous().view(-1).view(__import__("torch").uint8).cpu().numpy()
    return x.ravel().view(numpy.uint8).get()


@pytest.mark.parametrize("like", FRAMEWORKS)
@pytest.mark.parametrize("name, dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1024, 1024), (3001, 4999), (100003, 7), (7, 100003),
                                   (4099, 4111), (1, 5), (0, 3)])
def test_transpose_matches_numpy_bit_for_bit(like, name, dtype, shape, random_matrix):
    module = _framework_or_skip(like)
    host = random_matrix(shape, dtype)
    x = _exportable(like, module, host)
    assert ipt.cuda.is_exportable(x)
    y = ipt.cuda.transpose(x)
    assert tuple(y.shape) == shape[::-1]
    assert y.data_ptr() == x.data_ptr() if like == "torch" else y.data.ptr == x.data.ptr
    expected = numpy.ascontiguousarray(host.T).view(numpy.uint8).reshape(-1)
    assert numpy.array_equal(_to_host(like, y), expected)
    # And back: the result is an ordinary array of the framework that ipt.cuda takes again.
    z = ipt.cuda.transpose(y)
    assert numpy.array_equal(_to_host(like, z), host.view(numpy.uint8).reshape(-1))


@pytest.mark.parametrize("like", FRAMEWORKS)
@pytest.mark.parametrize("shape, axes", [((8, 16, 32, 24), (0, 2, 3, 1)),
                                         ((5, 6, 7), None), ((3, 40, 50, 2), (2, 0, 1, 3))])
def test_permute_matches_numpy(like, shape, axes, random_matrix):
    module = _framework_or_skip(like)
    host = random_matrix(shape, numpy.float32)
    x = _exportable(like, module, host)
    y = ipt.cuda.permute(x, axes)
    expected = numpy.ascontiguousarray(numpy.transpose(host, axes))
    assert tuple(y.shape) == expected.shape
    assert numpy.array_equal(_to_host(like, y), expected.view(numpy.uint8).reshape(-1))


@pytest.mark.parametrize("like", FRAMEWORKS)
def test_an_offset_view_inside_the_allocation_is_transposed_alone(like, random_matrix):
    module = _framework_or_skip(like)
    host = random_matrix((3 * 500, 300), numpy.float32)
    whole = _exportable(like, module, host)
    middle = whole[500:1000]  # rows 500..999: contiguous, at an offset
    y = ipt.cuda.transpose(middle)
    # Bits, not floats: the random data holds NaNs, which equal nothing.
    flat = _to_host(like, whole).view(numpy.uint32)
    bits = host.view(numpy.uint32)
    assert numpy.array_equal(flat[:500 * 300], bits[:500].reshape(-1))
    assert numpy.array_equal(flat[500 * 300:1000 * 300], bits[500:1000].T.reshape(-1))
    assert numpy.array_equal(flat[1000 * 300:], bits[1000:].reshape(-1))
    assert tuple(y.shape) == (300, 500)


def test_work_queued_on_a_torch_stream_is_ordered(random_matrix):
    torch = _framework_or_skip("torch")
    host = random_matrix((4096, 6000), numpy.float32)
    source = torch.from_numpy(host).cuda()
    x = ipt.cuda.empty(host.shape, torch.float32)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        a = torch.randn(8192, 8192, device="cuda")
        for _ in range(20):  # tens of milliseconds of work ahead of the copy
            a = a @ a * 1e-4
        x.copy_(source)  # queued, not done, when transpose is called
        y = ipt.cuda.transpose(x)
        after = y.view(torch.int32) + 0  # queued after: must read the transposed matrix
    stream.synchronize()
    # Bits, not floats: the random data holds NaNs, which equal nothing.
    expected = numpy.ascontiguousarray(host.T).view(numpy.uint32)
    assert numpy.array_equal(after.cpu().numpy().view(numpy.uint32), expected)
    assert numpy.array_equal(y.cpu().numpy().view(numpy.uint32), expected)


def test_work_queued_on_a_cupy_stream_is_ordered(random_matrix):
    cupy = _framework_or_skip("cupy")
    host = random_matrix((4096, 6000), numpy.float32)
    source = cupy.asarray(host)
    x = ipt.cuda.empty(host.shape, "float32", like="cupy")
    with cupy.cuda.Stream(non_blocking=True) as stream:
        a = cupy.random.standard_normal((8192, 8192), dtype=cupy.float32)
        for _ in range(20):  # tens of milliseconds of work ahead of the copy
            a = a @ a * 1e-4
        x[...] = source  # queued, not done, when transpose is called
        y = ipt.cuda.transpose(x)
        after = y.view(cupy.int32) + 0  # queued after: must read the transposed matrix
    stream.synchronize()
    expected = numpy.ascontiguousarray(host.T).view(numpy.uint32)
    assert numpy.array_equal(after.get().view(numpy.uint32), expected)
    assert numpy.array_equal(y.get().view(numpy.uint32), expected)


@pytest.mark.parametrize("like", FRAMEWORKS)
def test_memory_of_the_frameworks_allocator_is_refused_and_untouched(like, random_matrix):
    module = _framework_or_skip(like)
    host = random_matrix((256, 384), numpy.float32)
    x = module.asarray(host) if like == "cupy" else module.from_numpy(host).cuda()
    assert not ipt.cuda.is_exportable(x)
    with pytest.raises(ipt.cuda.NotExportableError, match=r"ipt\.cuda\.empty"):
        ipt.cuda.transpose(x)
    with pytest.raises(ipt.cuda.NotExportableError):
        ipt.cuda.permute(x.reshape(16, 16, 384), (2, 0, 1))
    assert numpy.array_equal(_to_host(like, x), host.view(numpy.uint8).reshape(-1))


@pytest.mark.parametrize("like", FRAMEWORKS)
def test_the_memory_goes_back_with_the_last_array_over_it(like):
    """The allocation (and OpenCL's import of it) lives while any array over it does, and
    the device gets its memory back when the last one goes."""
    module = _framework_or_skip(like)
    free_memory = (lambda: module.cuda.mem_get_info()[0]) if like == "torch" else \
        (lambda: module.cuda.runtime.memGetInfo()[0])
    gib = 1 << 30
    before = free_memory()
    x = ipt.cuda.empty((gib // 4096, 1024), module.float32 if like == "torch" else "float32",
                       like)
    y = ipt.cuda.transpose(x)  # imports the allocation into OpenCL
    allocation = weakref.ref(ipt.cuda._allocation_of(ipt.cuda._Array(y, "test"), "test"))
    assert free_memory() <= before - gib
    del x
    gc.collect()
    assert allocation() is not None  # y still lies in it
    del y
    gc.collect()
    assert allocation() is None
    assert free_memory() >= before - gib // 8


def test_a_call_on_imported_memory_ends_with_its_release(random_matrix):
    """libipt acquires an external buffer before its commands and releases it after: the
    event a call returns is the release's."""
    torch = _framework_or_skip("torch")
    host = random_matrix((1000, 3000), numpy.float32)
    x = _exportable("torch", torch, host)
    allocation = ipt.cuda._allocation_of(ipt.cuda._Array(x, "test"), "test")
    context, device, queue = ipt.cuda._opencl_of(x.device.index)
    buffer = ipt.cuda._buffer_of(allocation, context, device)
    torch.cuda.synchronize()
    event = _library.cl_handle()
    status = _library.lib.ipt_transpose(queue, buffer, 0, 1000, 3000, 0, None,
                                        ctypes.byref(event), 4)
    assert status == 0
    assert _opencl.command_type(event.value) == 0x2048  # CL_COMMAND_RELEASE_EXTERNAL_MEM_OBJECTS_KHR
    _opencl.wait_and_release(event.value)
    assert numpy.array_equal(x.view(3000, 1000).cpu().numpy().view(numpy.uint32),
                             host.T.view(numpy.uint32))


def test_a_warmup_in_the_background_lets_calls_run_meanwhile(random_matrix):
    """warmup(wait=False) builds on a thread of its own; a transposition of a new shape of
    the same element size, made meanwhile, is right; the future ends with None; a warm-up
    that cannot run (no such device) ends with the error."""
    torch = _framework_or_skip("torch")
    future = ipt.cuda.warmup(torch.complex64, wait=False)
    host = random_matrix((2111, 3217), numpy.complex64)
    x = _exportable("torch", torch, host)
    y = ipt.cuda.transpose(x)
    assert numpy.array_equal(_to_host("torch", y),
                             numpy.ascontiguousarray(host.T).view(numpy.uint8).reshape(-1))
    assert future.result(timeout=600) is None
    assert ipt.cuda.warmup(8, device=torch.device("cuda:0")) is None  # built: returns soon
    missing = ipt.cuda.warmup(4, device=torch.cuda.device_count() + 7, wait=False)
    with pytest.raises((ipt.cuda.CudaError, ipt.cuda.CudaUnavailableError)):
        missing.result(timeout=60)


@pytest.mark.skipif(os.environ.get("IPT_CUDA_LARGE") != "1",
                    reason="IPT_CUDA_LARGE=1 runs the tensor of 62% of the GPU's memory")
def test_a_float32_tensor_of_most_of_the_gpu_is_transposed_in_place():
    torch = _framework_or_skip("torch")
    free, total = torch.cuda.mem_get_info()
    rows = 100003
    cols = int(0.62 * total) // 4 // rows
    x = ipt.cuda.empty((rows, cols), torch.float32)
    bits = x.view(-1).view(torch.int32)
    chunk = 1 << 26

    def pattern(first, count):
        # Pseudo-random 32-bit words of the flat index (bits of floats: NaNs included).
        i = torch.arange(first, first + count, device="cuda", dtype=torch.int64)
        h = (i * 0x9E3779B1) ^ (i >> 15) ^ (i * 0x85EBCA77 >> 29)
        return (h & 0xFFFFFFFF).to(torch.int64).sub_(1 << 31).to(torch.int32)

    n = rows * cols
    for first in range(0, n, chunk):
        bits[first:first + chunk] = pattern(first, min(chunk, n - first))
    assert x.numel() * 4 > 0.6 * total
    y = ipt.cuda.transpose(x)
    wrong = 0
    step = max(1, chunk // rows)  # rows of y (cols x rows) per check
    yb = y.view(torch.int32)
    for j0 in range(0, cols, step):
        j1 = min(cols, j0 + step)
        # y[j, i] = x[i, j], whose flat index is i * cols + j.
        j = torch.arange(j0, j1, device="cuda", dtype=torch.int64).view(-1, 1)
        i = torch.arange(rows, device="cuda", dtype=torch.int64).view(1, -1)
        flat = i * cols + j
        h = (flat * 0x9E3779B1) ^ (flat >> 15) ^ (flat * 0x85EBCA77 >> 29)
        want = (h & 0xFFFFFFFF).sub_(1 << 31).to(torch.int32)
        wrong += int((yb[j0:j1] != want).sum())
    assert wrong == 0
