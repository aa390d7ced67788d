# SPDX-License-Identifier: Apache-2.0
"""ipt.transpose against numpy, bit for bit: element types, shapes, events, offsets."""

import dataclasses
import time

import numpy
import pyopencl
import pyopencl.array as cla
import pytest

import ipt

# A record of 16 bytes: elements are moved whole, whatever their fields.
RECORD16 = numpy.dtype([("x", "<f4"), ("id", "<i8"), ("flag", "u1"), ("pad", "V3")])
DTYPES = [numpy.uint8, numpy.int16, numpy.float16, numpy.float32, numpy.float64,
          numpy.complex64, numpy.complex128, RECORD16]
SHAPES = [(64, 64), (300, 200), (200, 300), (97, 89), (1, 1000), (1000, 1), (1, 1),
          (7, 1234), (257, 130)]
# Large enough for other sequences and for padding (primes) on PoCL.
LARGE_SHAPES = [(1009, 997), (2003, 1999), (1200, 1500), (2048, 1000)]


def assert_same_bits(actual, expected):
    """Compares bytes: random bits make NaNs, which == would call unequal to themselves."""
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    numpy.testing.assert_array_equal(numpy.ascontiguousarray(actual).view(numpy.uint8),
                                     numpy.ascontiguousarray(expected).view(numpy.uint8))


def check_transpose(queue, host, **kwargs):
    array = cla.to_device(queue, host)
    result = ipt.transpose(queue, array, **kwargs)
    assert result.shape == host.shape[::-1]
    assert result.dtype == host.dtype
    assert result.base_data is array.base_data and result.offset == array.offset
    assert_same_bits(result.get(), host.T)
    return array, result


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: numpy.dtype(d).str)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "%dx%d" % s)
def test_matches_numpy(queue, random_matrix, dtype, shape):
    check_transpose(queue, random_matrix(shape, dtype))


@pytest.mark.parametrize("dtype", [numpy.uint8, numpy.float32, numpy.complex128],
                         ids=lambda d: numpy.dtype(d).str)
@pytest.mark.parametrize("shape", LARGE_SHAPES, ids=lambda s: "%dx%d" % s)
def test_large_shapes(queue, random_matrix, dtype, shape):
    check_transpose(queue, random_matrix(shape, dtype))


@pytest.mark.parametrize("sequence", ["1", "2.1", "2.2", "3.1", "3.2", "4.1", "4.2", "on-chip"])
@pytest.mark.parametrize("dtype, shape", [(numpy.uint8, (300, 200)), (numpy.float32, (300, 200)),
                                          (numpy.complex128, (120, 80))],
                         ids=["u1", "f4", "c16"])
def test_forced_sequences(queue, device, random_matrix, sequence, dtype, shape):
    """ipt_transpose_with_options, every sequence (small enough for an on-chip plan)."""
    options = ipt.PlanOptions(sequence=sequence)
    assert ipt.plan(device, *shape, dtype, options).sequence == sequence
    check_transpose(queue, random_matrix(shape, dtype), options=options)


def _equal_neighbours(matrix):
    """How many elements of a 2-D array equal (bit for bit) their left or upper neighbour."""
    rows, cols = matrix.shape
    elements = numpy.ascontiguousarray(matrix).view(numpy.uint8).reshape(rows, cols, -1)
    left = (elements[:, 1:] == elements[:, :-1]).all(axis=2)
    up = (elements[1:, :] == elements[:-1, :]).all(axis=2)
    return int(left.sum() + up.sum())


@pytest.mark.parametrize("dtype", [numpy.uint8, numpy.int16, numpy.float32],
                         ids=lambda d: numpy.dtype(d).str)
@pytest.mark.parametrize("shape", [(256, 256), (255, 257), (1, 5000), (5000, 1), (97, 1031)],
                         ids=lambda s: "%dx%d" % s)
def test_random_matrix_separates_neighbours(random_matrix, dtype, shape):
    """The tests' data: random 1-byte elements would equal a neighbour once in 256 and hide
    a transposition that swaps or drops it there; none does, in the matrix or its
    transpose, and the data are still random (every byte value, near-equal counts)."""
    matrix = random_matrix(shape, dtype)
    assert _equal_neighbours(matrix) == 0
    assert _equal_neighbours(matrix.T) == 0
    if numpy.dtype(dtype).itemsize == 1 and matrix.size >= 65536:
        counts = numpy.bincount(matrix.view(numpy.uint8).ravel(), minlength=256)
        # 256 expected per value, about 16 either way by chance.
        assert counts.min() > 0.6 * matrix.size / 256
        assert counts.max() < 1.4 * matrix.size / 256


def test_empty_array(queue):
    array = cla.empty(queue, (0, 5), numpy.float32)
    result = ipt.transpose(queue, array)
    assert result.shape == (5, 0) and result.dtype == numpy.float32


def test_returned_event_is_the_arrays(queue, random_matrix):
    host = random_matrix((300, 200), numpy.float32)
    array = cla.to_device(queue, host)
    before = list(array.events)
    result = ipt.transpose(queue, array)
    assert len(result.events) == 1
    event = result.events[0]
    assert isinstance(event, pyopencl.Event)
    # The input array waits for it too: later work on the old object sees the transpose.
    assert array.events == before + [event]
    event.wait()
    assert event.command_execution_status == pyopencl.command_execution_status.COMPLETE
    assert_same_bits(array.get().reshape(200, 300), host.T)


def _gated_upload(queue, array, host):
    """Enqueues the upload of `host` into `array`, held until the returned gate opens."""
    gate = pyopencl.UserEvent(queue.context)
    copy = pyopencl.enqueue_copy(queue, array.base_data, host, wait_for=[gate],
                                 is_blocking=False)
    return gate, copy


def _assert_held(event):
    # Time for a transposition that ignored its wait list to run (it takes milliseconds).
    time.sleep(0.2)
    assert event.command_execution_status != pyopencl.command_execution_status.COMPLETE


@pytest.mark.parametrize("how", ["array.events", "wait_for"])
def test_waits_for_events(any_queue, random_matrix, how):
    """A transposition that ran before the gated upload would transpose `old` and leave
    `new` untransposed: wrong on an out-of-order queue, hung on an in-order one."""
    old = random_matrix((300, 200), numpy.float32)
    new = random_matrix((300, 200), numpy.float32)
    array = cla.to_device(any_queue, old)
    gate, copy = _gated_upload(any_queue, array, new)
    try:
        if how == "array.events":
            array.add_event(copy)
            result = ipt.transpose(any_queue, array)
        else:
            result = ipt.transpose(any_queue, array, wait_for=[copy])
        _assert_held(result.events[0])
    finally:
        gate.set_status(pyopencl.command_execution_status.COMPLETE)
    assert_same_bits(result.get(), new.T)


def test_chained_calls(any_queue, random_matrix):
    """Each call waits for the previous one through the events of the array it gets. A
    copy after each call keeps its result (the next call waits for the copy too), so that
    every call is checked: the second and third alone are a round trip, which calls that
    do nothing pass."""
    host = random_matrix((1009, 997), numpy.float32)
    array = cla.to_device(any_queue, host)
    once = ipt.transpose(any_queue, array)
    after_once = once.copy()
    twice = ipt.transpose(any_queue, once, wait_for=after_once.events)
    after_twice = twice.copy()
    thrice = ipt.transpose(any_queue, twice, wait_for=after_twice.events)
    assert twice.shape == host.shape and thrice.shape == host.T.shape
    assert_same_bits(after_once.get(), host.T)
    assert_same_bits(after_twice.get(), host)
    assert_same_bits(thrice.get(), host.T)


@pytest.mark.parametrize("mode", ["auto", "padded-in-buffer", "no-borrowing"])
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.complex128],
                         ids=lambda d: numpy.dtype(d).str)
def test_offset_view_leaves_the_rest(queue, device, random_matrix, dtype, mode):
    """A sub-array of a larger buffer: the bytes before and after it come back as they
    were, also those a padded plan borrows as workspace (forced here: 100 x 90)."""
    rows, cols, before, after = 97, 89, 33, 500
    whole = random_matrix((before + rows * cols + after,), dtype)
    big = cla.to_device(queue, whole)
    view = big[before:before + rows * cols].reshape(rows, cols)
    assert view.offset == before * whole.itemsize and view.base_data is big.base_data
    room = (rows * cols + after) * whole.itemsize
    options = None
    if mode == "padded-in-buffer":
        options = ipt.PlanOptions(padded_rows=100, padded_cols=90)
        assert ipt.plan(device, rows, cols, dtype, dataclasses.replace(
            options, max_bytes=room)).borrowed_bytes > 0
    elif mode == "no-borrowing":  # the guide's recipe for views whose neighbours are busy
        options = ipt.PlanOptions(max_bytes=view.nbytes)
        assert ipt.plan(device, rows, cols, dtype, options).borrowed_bytes == 0
    result = ipt.transpose(queue, view, options=options)
    assert result.offset == view.offset
    result.finish()  # big.get() waits only for big's own events
    after_call = big.get()
    assert_same_bits(after_call[:before], whole[:before])
    assert_same_bits(after_call[before + rows * cols:], whole[before + rows * cols:])
    expected = whole[before:before + rows * cols].reshape(rows, cols).T
    assert_same_bits(after_call[before:before + rows * cols].reshape(cols, rows), expected)
    assert_same_bits(result.get(), expected)
