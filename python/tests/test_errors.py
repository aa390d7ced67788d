# SPDX-License-Identifier: Apache-2.0
"""What ipt refuses, and how: Python's TypeError / ValueError for arrays the package cannot
pass, ipt.Error for the library's statuses; the buffer unchanged either way."""

import os
import subprocess
import sys

import numpy
import pyopencl
import pyopencl.array as cla
import pytest

import ipt


@pytest.fixture
def matrix(queue, random_matrix):
    """(device array, its host copy): random float32, 12 x 20."""
    host = random_matrix((12, 20), numpy.float32)
    return cla.to_device(queue, host), host


def assert_unchanged(array, host):
    numpy.testing.assert_array_equal(array.get().view(numpy.uint8), host.view(numpy.uint8))


def test_not_an_array(queue, random_matrix):
    with pytest.raises(TypeError, match="pyopencl.array.Array"):
        ipt.transpose(queue, random_matrix((4, 4), numpy.float32))


def test_three_dimensional(queue, random_matrix):
    host = random_matrix((3, 4, 5), numpy.float32)
    array = cla.to_device(queue, host)
    with pytest.raises(ValueError, match="2-D"):
        ipt.transpose(queue, array)
    assert_unchanged(array, host)


@pytest.mark.parametrize("view", ["strided", "transposed"])
def test_not_contiguous(queue, matrix, view):
    array, host = matrix
    strided = array[:, ::2] if view == "strided" else array.T
    with pytest.raises(ValueError, match="C-contiguous"):
        ipt.transpose(queue, strided)
    assert_unchanged(array, host)


@pytest.mark.parametrize("dtype", ["V3", "V32", "S5"])
def test_element_size(queue, random_matrix, dtype):
    host = random_matrix((6, 7), dtype)
    array = cla.to_device(queue, host)
    with pytest.raises(ValueError, match="elements of 1, 2, 4, 8, 16 bytes"):
        ipt.transpose(queue, array)
    assert array.get().tobytes() == host.tobytes()


def test_misaligned_offset(queue, random_matrix):
    host = random_matrix((1 + 4 * 48,), numpy.uint8)
    big = cla.to_device(queue, host)
    view = big[1:].view(numpy.float32).reshape(6, 8)  # 1 byte in: not a float's boundary
    with pytest.raises(ValueError, match="offset"):
        ipt.transpose(queue, view)
    assert_unchanged(big, host)


def test_bad_queue_and_events(queue, matrix):
    array, host = matrix
    with pytest.raises(TypeError, match="CommandQueue"):
        ipt.transpose(array.context, array)
    with pytest.raises(TypeError, match="pyopencl.Event"):
        ipt.transpose(queue, array, wait_for=["not an event"])
    with pytest.raises(TypeError, match="PlanOptions"):
        ipt.transpose(queue, array, options={"sequence": "1"})
    with pytest.raises(ValueError, match="unknown sequence"):
        ipt.transpose(queue, array, options=ipt.PlanOptions(sequence="2.3"))
    assert_unchanged(array, host)


def test_status_of_another_context(device, matrix):
    """The library's own check: a queue of another context than the buffer's."""
    array, host = matrix
    other = pyopencl.CommandQueue(pyopencl.Context([device]))
    with pytest.raises(ipt.Error) as caught:
        ipt.transpose(other, array)
    error = caught.value
    assert error.status is ipt.Status.INVALID_CONTEXT
    assert error.name.startswith("IPT_INVALID_CONTEXT")
    assert error.message  # which check failed, from ipt_last_error_message
    assert error.function == "ipt_transpose"
    assert error.name in str(error) and error.message in str(error)
    assert_unchanged(array, host)


def test_status_of_a_read_only_buffer(queue, context):
    buffer = pyopencl.Buffer(context, pyopencl.mem_flags.READ_ONLY, 10 * 10 * 4)
    array = cla.Array(queue, (10, 10), numpy.float32, data=buffer)
    with pytest.raises(ipt.Error) as caught:
        ipt.transpose(queue, array)
    assert caught.value.status is ipt.Status.INVALID_MEM_OBJECT


def test_status_of_a_small_buffer(queue, context, random_matrix):
    host = random_matrix((10, 10), numpy.float32)
    buffer = pyopencl.Buffer(context, pyopencl.mem_flags.READ_WRITE, host.nbytes)
    pyopencl.enqueue_copy(queue, buffer, host)
    array = cla.Array(queue, (10, 20), numpy.float32, data=buffer)  # twice the buffer
    with pytest.raises(ipt.Error) as caught:
        ipt.transpose(queue, array)
    assert caught.value.status is ipt.Status.BUFFER_TOO_SMALL
    back = numpy.empty_like(host)
    pyopencl.enqueue_copy(queue, back, buffer)
    numpy.testing.assert_array_equal(back.view(numpy.uint8), host.view(numpy.uint8))


def test_plan_statuses(device):
    with pytest.raises(ipt.Error) as caught:
        ipt.plan(device, 10, 12, 3)
    assert caught.value.status is ipt.Status.INVALID_ELEMENT_SIZE
    with pytest.raises(ipt.Error) as caught:
        ipt.plan(device, 10, 12, numpy.float32, ipt.PlanOptions(sequence="square"))
    assert caught.value.status is ipt.Status.INVALID_VALUE
    assert "rows == cols" in caught.value.message
    with pytest.raises(ipt.Error) as caught:
        ipt.padded_size(device, 2 ** 62, 8, numpy.float32)
    assert caught.value.status is ipt.Status.SIZE_OVERFLOW


def test_argument_types(device, context):
    with pytest.raises(ValueError, match="size_t"):
        ipt.plan(device, -1, 12, numpy.float32)
    with pytest.raises(ValueError, match="size_t"):
        ipt.padded_size(device, 2 ** 64, 1, numpy.float32)
    with pytest.raises(TypeError, match="int"):
        ipt.padded_size(device, 10.0, 10, numpy.float32)
    with pytest.raises(TypeError, match="Device"):
        ipt.plan(context, 10, 10, numpy.float32)
    with pytest.raises(ValueError, match="padding"):
        ipt.plan(device, 10, 10, numpy.float32, ipt.PlanOptions(padding="on"))


def _import_in_child(environment):
    return subprocess.run([sys.executable, "-c", "import ipt; print(ipt.library_path)"],
                          env=dict(os.environ, **environment), capture_output=True, text=True)


def test_library_from_environment(tmp_path):
    missing = str(tmp_path / "libipt-missing.so")
    child = _import_in_child({"IPT_LIBRARY": missing})
    assert child.returncode != 0
    assert "ImportError" in child.stderr and missing in child.stderr
    assert "IPT_LIBRARY" in child.stderr
    # Another library of that name (Intel's processor-trace libipt.so.2 on many Debian
    # machines) is refused by its symbols; libm stands in for it.
    child = _import_in_child({"IPT_LIBRARY": "libm.so.6"})
    assert child.returncode != 0 and "not this libipt" in child.stderr
    loaded = ipt.library_path
    child = _import_in_child({"IPT_LIBRARY": loaded})
    assert child.returncode == 0 and child.stdout.strip() == loaded


def test_library_is_this_builds():
    """ctest names the library it built: the package must load that one, not another
    libipt on the loader's path."""
    expected = os.environ.get("IPT_EXPECTED_LIBRARY")
    if not expected:
        pytest.skip("IPT_EXPECTED_LIBRARY is not set (set by ctest)")
    assert os.path.realpath(ipt.library_path) == os.path.realpath(expected)
