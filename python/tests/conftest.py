# SPDX-License-Identifier: Apache-2.0
"""Fixtures: the device IPT_DEVICE names, as the C tests and tools choose it (a
case-insensitive substring of "platform name | device name"; default: the first device),
its context, and queues; random matrices, seeded by the test's id and IPT_TEST_SEED."""

import heapq
import os

import numpy
import pytest


def _select_device():
    import pyopencl  # here, not above: ipt.cuda's tests run without it
    devices = [(platform.name + " | " + device.name, device)
               for platform in pyopencl.get_platforms() for device in platform.get_devices()]
    if not devices:
        pytest.exit("no OpenCL device found (Debian, CPU device: apt-get install "
                    "pocl-opencl-icd)", returncode=1)
    wanted = os.environ.get("IPT_DEVICE", "").lower()
    for description, device in devices:
        if wanted in description.lower():
            return device
    pytest.exit("IPT_DEVICE=%r matches no device; available:\n  %s"
                % (wanted, "\n  ".join(d for d, _ in devices)), returncode=1)


@pytest.fixture(scope="session")
def device():
    return _select_device()


@pytest.fixture(scope="session")
def context(device):
    import pyopencl
    return pyopencl.Context([device])


@pytest.fixture(scope="session")
def queue(context):
    import pyopencl
    return pyopencl.CommandQueue(context)


@pytest.fixture(scope="session", params=["in-order", "out-of-order"])
def any_queue(request, context, device):
    """Both kinds of queue: on an out-of-order one only the events order the commands."""
    import pyopencl
    if request.param == "in-order":
        return pyopencl.CommandQueue(context)
    flag = pyopencl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
    if not device.queue_properties & flag:
        pytest.skip("the device has no out-of-order queues")
    return pyopencl.CommandQueue(context, properties=flag)


def ipt_test_seed():
    """IPT_TEST_SEED (a decimal number) to draw other data than the default, or None."""
    value = os.environ.get("IPT_TEST_SEED", "")
    if not value:
        return None
    if not value.isdigit():
        raise ValueError("IPT_TEST_SEED=%r is not a decimal number" % value)
    return int(value)


def separate_neighbours(raw, count, itemsize, row_length):
    """Makes each of the `count` elements of `itemsize` bytes in the uint8 array `raw`, rows
    of `row_length` elements (0: one row), differ from the element before it and from the
    one above it: its neighbours in the matrix and in its transpose. Random 1-byte elements
    equal a neighbour once in 256, which would hide a swapped or dropped neighbour. As the
    C++ tests' support::separate_neighbours: an equal element has its first byte stepped
    through 1..255 until it differs from both, in row-major order."""
    elements = raw.reshape(count, itemsize)

    def equal_to_neighbour(i):
        return ((elements[i] == elements[i - 1]).all()
                or (0 < row_length <= i and (elements[i] == elements[i - row_length]).all()))

    # The elements equal to a neighbour now; fixing one may make its right or lower
    # neighbour equal to it, so those are looked at again (always later in the order).
    candidates = numpy.zeros(count, dtype=bool)
    candidates[1:] = (elements[1:] == elements[:-1]).all(axis=1)
    if 0 < row_length < count:
        candidates[row_length:] |= (elements[row_length:] == elements[:-row_length]).all(axis=1)
    heap = [int(i) for i in numpy.flatnonzero(candidates)]
    done = -1
    while heap:
        i = heapq.heappop(heap)
        if i == done:
            continue
        done = i
        stepped = False
        while equal_to_neighbour(i):
            elements[i, 0] = int(elements[i, 0]) % 255 + 1
            stepped = True
        if stepped:
            for j in (i + 1, i + row_length):
                if i < j < count:
                    heapq.heappush(heap, j)


@pytest.fixture
def random_matrix(request):
    """random_matrix(shape, dtype): random bits in every byte (NaN payloads and all), never
    a constant pattern, no element equal to its left or upper neighbour (the last axis
    is the row); seeded by the test's id (and IPT_TEST_SEED when set), so that a failure
    reproduces. The seed is printed: pytest shows it with a failure."""
    seed = ipt_test_seed()
    entropy = list(request.node.nodeid.encode()) + ([] if seed is None else [seed])
    print("random_matrix: seeded by the test id" +
          (" and IPT_TEST_SEED=%d" % seed if seed is not None else
           " (IPT_TEST_SEED unset; set it to draw other data)"))
    rng = numpy.random.default_rng(entropy)

    def make(shape, dtype):
        dtype = numpy.dtype(dtype)
        count = int(numpy.prod(shape))
        raw = rng.integers(0, 256, size=count * dtype.itemsize, dtype=numpy.uint8)
        row_length = shape[-1] if len(shape) >= 2 else 0
        separate_neighbours(raw, count, dtype.itemsize, row_length)
        return raw.view(dtype).reshape(shape)
    return make


def pytest_sessionfinish(session, exitstatus):
    """Under ctest (IPT_SKIP_EXIT_CODE set), a run in which every test passed but some
    skipped exits with that code (ctest's SKIP_RETURN_CODE), so that the skips are counted
    rather than passed over; -rs prints their reasons."""
    code = os.environ.get("IPT_SKIP_EXIT_CODE")
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if code and exitstatus == 0 and reporter is not None and reporter.stats.get("skipped"):
        session.exitstatus = int(code)
