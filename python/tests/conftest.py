"""Fixtures: the device IPT_DEVICE names, as the C tests and tools choose it (a
case-insensitive substring of "platform name | device name"; default: the first device),
its context, and queues."""

import os

import numpy
import pyopencl
import pytest


def _select_device():
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
    return pyopencl.Context([device])


@pytest.fixture(scope="session")
def queue(context):
    return pyopencl.CommandQueue(context)


@pytest.fixture(scope="session", params=["in-order", "out-of-order"])
def any_queue(request, context, device):
    """Both kinds of queue: on an out-of-order one only the events order the commands."""
    if request.param == "in-order":
        return pyopencl.CommandQueue(context)
    flag = pyopencl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
    if not device.queue_properties & flag:
        pytest.skip("the device has no out-of-order queues")
    return pyopencl.CommandQueue(context, properties=flag)


@pytest.fixture
def random_matrix(request):
    """random_matrix(shape, dtype): random bits in every byte (NaN payloads and all), never
    a constant pattern; seeded by the test's name, so that a failure reproduces."""
    rng = numpy.random.default_rng(list(request.node.nodeid.encode()))

    def make(shape, dtype):
        dtype = numpy.dtype(dtype)
        count = int(numpy.prod(shape)) * dtype.itemsize
        return rng.integers(0, 256, size=count, dtype=numpy.uint8).view(dtype).reshape(shape)
    return make
