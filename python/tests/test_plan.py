# SPDX-License-Identifier: Apache-2.0
"""ipt.plan and ipt.padded_size: consistent with each other, with the C tool, with the
header's promises."""

import os
import re
import subprocess

import numpy
import pyopencl.array as cla
import pytest

import ipt

SHAPES = [(64, 64), (300, 200), (97, 89), (1009, 997), (2003, 1999), (12289, 7)]
ITEMSIZES = [1, 4, 16]


def test_sequence_names():
    assert ipt.SEQUENCES == {"auto": 0, "square": 1, "1": 2, "2.1": 3, "2.2": 4, "3.1": 5,
                             "3.2": 6, "4.1": 7, "4.2": 8, "on-chip": 9}


def test_version():
    assert re.fullmatch(r"1\.\d+\.\d+", ipt.__version__)


@pytest.mark.parametrize("itemsize", ITEMSIZES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "%dx%d" % s)
def test_padded_size_and_plan_agree(device, shape, itemsize):
    """The automatic plan is the one for a buffer of ipt_padded_size bytes: what lies past
    the matrix is what it borrows, the room its padded matrix fills (or none, where the
    plan keeps its padding in scratch)."""
    rows, cols = shape
    size = ipt.padded_size(device, rows, cols, itemsize)
    info = ipt.plan(device, rows, cols, itemsize)
    assert size >= rows * cols * itemsize
    assert info.borrowed_bytes == size - rows * cols * itemsize
    if info.borrowed_bytes:
        assert size == info.padded_rows * info.padded_cols * itemsize
    assert info.padded_rows >= rows and info.padded_cols >= cols
    assert info.sequence in ipt.SEQUENCES and info.sequence != "auto"
    assert info.num_stages >= 1
    assert info.description.startswith("%d x %d" % (rows, cols))
    if rows * cols >= 10 ** 6:  # "at most 0.5% more elements"
        assert size <= rows * cols * itemsize * 1.005


def test_dtype_or_itemsize(device):
    for dtype, itemsize in [(numpy.complex128, 16), ("f4", 4), (numpy.dtype("u2"), 2)]:
        assert ipt.plan(device, 1009, 997, dtype) == ipt.plan(device, 1009, 997, itemsize)
        assert (ipt.padded_size(device, 1009, 997, dtype)
                == ipt.padded_size(device, 1009, 997, itemsize))


def test_square_plan(device):
    info = ipt.plan(device, 512, 512, numpy.float32)
    assert info.sequence == "square"
    assert (info.padded_rows, info.padded_cols, info.borrowed_bytes) == (512, 512, 0)
    assert ipt.padded_size(device, 512, 512, numpy.float32) == 512 * 512 * 4


def test_no_padding_and_no_borrowing(device):
    rows, cols, itemsize = 2003, 1999, 4
    off = ipt.plan(device, rows, cols, itemsize, ipt.PlanOptions(padding="off"))
    assert (off.padded_rows, off.padded_cols, off.borrowed_bytes) == (rows, cols, 0)
    # A buffer of just the matrix: any padding lives in scratch, nothing is borrowed.
    exact = ipt.plan(device, rows, cols, itemsize,
                     ipt.PlanOptions(max_bytes=rows * cols * itemsize))
    assert exact.borrowed_bytes == 0
    assert exact.scratch_bytes >= ((exact.padded_rows * exact.padded_cols - rows * cols)
                                   * itemsize)


def test_forced_padded_shape(device):
    info = ipt.plan(device, 97, 89, 4, ipt.PlanOptions(padded_rows=100, padded_cols=90))
    assert (info.padded_rows, info.padded_cols) == (100, 90)
    assert info.borrowed_bytes == (100 * 90 - 97 * 89) * 4


def test_warmup_and_clear_cache(context, device, queue, random_matrix):
    # In the background, with a call of the same element size made meanwhile; then the
    # blocking form, which finds everything built.
    future = ipt.warmup(context, device, numpy.complex128, wait=False)
    host = random_matrix((130, 70), numpy.complex128)
    result = ipt.transpose(queue, cla.to_device(queue, host))
    numpy.testing.assert_array_equal(result.get().view(numpy.uint8),
                                     numpy.ascontiguousarray(host.T).view(numpy.uint8))
    assert future.result(timeout=1800) is None
    assert ipt.warmup(context, device, numpy.complex128) is None
    ipt.clear_cache()
    host = random_matrix((300, 200), numpy.float32)
    result = ipt.transpose(queue, cla.to_device(queue, host))
    expected = numpy.ascontiguousarray(host.T)
    numpy.testing.assert_array_equal(result.get().view(numpy.uint8), expected.view(numpy.uint8))


@pytest.mark.parametrize("itemsize", ITEMSIZES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "%dx%d" % s)
def test_plan_matches_the_c_tool(device, shape, itemsize):
    """ipt-plan prints the C API's ipt_plan_info for the same device: a mirror of the
    structure with a wrong field would read other numbers or text."""
    tool = os.environ.get("IPT_PLAN_TOOL")
    if not tool:
        pytest.skip("IPT_PLAN_TOOL is not set (set by ctest when the tools are built)")
    output = subprocess.run([tool, str(shape[0]), str(shape[1]), str(itemsize)],
                            capture_output=True, text=True, check=True).stdout
    lines = output.rstrip("\n").split("\n")
    assert lines[0].startswith("device: ")
    assert lines[0].endswith(device.name)
    stages, scratch = map(int, re.fullmatch(r"(\d+) kernel\(s\), (\d+) bytes of scratch per call",
                                            lines[-1]).groups())
    info = ipt.plan(device, shape[0], shape[1], itemsize)
    assert info.description == "\n".join(lines[1:-1])
    assert (info.num_stages, info.scratch_bytes) == (stages, scratch)
