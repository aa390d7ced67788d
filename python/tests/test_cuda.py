# SPDX-License-Identifier: Apache-2.0
"""ipt.cuda without a GPU: the checks, the paths without a CUDA driver, the package
without pyopencl. test_cuda_gpu.py transposes PyTorch and CuPy arrays on a GPU."""

import os
import subprocess
import sys

import numpy
import pytest

import ipt
import ipt.cuda
from ipt import _axes, _background, _cuda_driver


# --- without a GPU ---------------------------------------------------------------------

def test_without_a_cuda_driver_every_call_says_why(monkeypatch):
    monkeypatch.setattr(_cuda_driver, "LIBRARY", "libcuda-absent.so.1")
    _cuda_driver.reset()
    try:
        ok, why = ipt.cuda.available()
        assert not ok
        assert "libcuda-absent.so.1" in why and "cannot be loaded" in why
        with pytest.raises(ipt.cuda.CudaUnavailableError, match="cannot be loaded"):
            ipt.cuda.empty((4, 4), "float32", like="cupy")
        # The arguments are checked before the driver is needed.
        with pytest.raises(TypeError, match="torch.Tensor or cupy.ndarray"):
            ipt.cuda.transpose(numpy.zeros((2, 3), numpy.float32))
        with pytest.raises(TypeError, match="torch.Tensor or cupy.ndarray"):
            ipt.cuda.permute([[1, 2]], (1, 0))
        with pytest.raises(TypeError, match="not NoneType"):
            ipt.cuda.is_exportable(None)
        with pytest.raises(ipt.cuda.CudaUnavailableError, match="cannot be loaded"):
            ipt.cuda.warmup(numpy.float32)
        # Not on the thread: a warm-up that cannot start says so at once.
        with pytest.raises(ipt.cuda.CudaUnavailableError, match="cannot be loaded"):
            ipt.cuda.warmup(4, wait=False)
    finally:
        _cuda_driver.reset()


@pytest.mark.parametrize("dtype, size", [(4, 4), (numpy.float64, 8), ("complex64", 8),
                                         (numpy.dtype(numpy.uint8), 1), (numpy.float16, 2),
                                         ("complex128", 16)])
def test_warmup_takes_sizes_and_dtypes(dtype, size):
    assert ipt.cuda._itemsize(dtype, "w") == size


@pytest.mark.parametrize("dtype, device, error, text", [
    (3, 0, ValueError, "elements of 3 bytes"), (numpy.dtype("S32"), 0, ValueError, "32 bytes"),
    (True, 0, TypeError, "neither an element size nor a dtype"),
    (object(), 0, TypeError, "neither an element size nor a dtype"),
    (4, "cuda", TypeError, "not a CUDA device ordinal"),
    (4, -1, TypeError, "not a CUDA device ordinal")])
def test_warmup_refuses_what_it_cannot_take_before_the_driver(dtype, device, error, text,
                                                             monkeypatch):
    monkeypatch.setattr(_cuda_driver, "LIBRARY", "libcuda-absent.so.1")
    _cuda_driver.reset()
    try:
        with pytest.raises(error, match=text):
            ipt.cuda.warmup(dtype, device)
    finally:
        _cuda_driver.reset()


def test_like_must_name_a_framework():
    with pytest.raises(ValueError, match="like='numpy'"):
        ipt.cuda._framework("numpy")


@pytest.mark.parametrize("axes, error", [((0, 0, 1), ValueError), ((0, 1), ValueError),
                                         ((0, 1, 3), ValueError), (5, TypeError)])
def test_axes_that_are_no_permutation_are_refused(axes, error):
    with pytest.raises(error):
        _axes.checked_axes(3, axes, "ipt.cuda.permute")


def test_axes_default_to_reversed_and_rank_is_bounded():
    assert _axes.checked_axes(3, None, "f") == (2, 1, 0)
    assert _axes.checked_axes(2, [1, 0], "f") == (1, 0)
    with pytest.raises(ValueError, match="1 to 8"):
        _axes.checked_axes(9, None, "f")


def test_the_memory_is_seen_as_bytes_through_the_cuda_array_interface():
    class Fake:
        pointer = 1 << 21
    interface = ipt.cuda._Memory(Fake(), 96).__cuda_array_interface__
    assert interface["shape"] == (96,) and interface["typestr"] == "|u1"
    assert interface["data"] == (1 << 21, False) and interface["version"] == 3


def test_ipt_and_ipt_cuda_import_without_pyopencl():
    code = ("import sys; sys.modules['pyopencl'] = None\n"
            "import ipt, ipt.cuda\n"
            "try:\n"
            "    ipt.transpose(None, None)\n"
            "except ImportError as e:\n"
            "    assert 'needs pyopencl' in str(e), e\n"
            "else:\n"
            "    raise SystemExit('ipt.transpose ran without pyopencl')\n"
            "ok, why = ipt.cuda.available()\n"
            "assert isinstance(ok, bool) and isinstance(why, str) and (ok or why), (ok, why)\n"
            "print('ok')\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok")


def test_background_work_ends_its_future_with_its_result_or_error():
    started = _background.started(lambda: 42, "test")
    assert started.result(timeout=60) == 42

    def fails():
        raise ipt.cuda.CudaUnavailableError("no GPU here")
    failed = _background.started(fails, "test")
    with pytest.raises(ipt.cuda.CudaUnavailableError, match="no GPU here"):
        failed.result(timeout=60)
