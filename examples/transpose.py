# SPDX-License-Identifier: Apache-2.0
"""Transpose a float matrix in place on an OpenCL device (a GPU if there is one), from
Python: pyopencl holds the matrix, ipt transposes it in its buffer."""

import sys

import numpy
import pyopencl
import pyopencl.array

import ipt


def pick_device():
    """The first GPU of any platform, else the first device of any kind."""
    devices = [d for platform in pyopencl.get_platforms() for d in platform.get_devices()]
    gpus = [d for d in devices if d.type & pyopencl.device_type.GPU]
    return (gpus or devices)[0]


def main():
    device = pick_device()
    context = pyopencl.Context([device])
    queue = pyopencl.CommandQueue(context)

    rows, cols = 1000, 600
    host = numpy.random.default_rng().random((rows, cols), dtype=numpy.float32)
    matrix = pyopencl.array.to_device(queue, host)
    try:
        # Enqueued after matrix.events; the result is a cols x rows view of the same buffer.
        transposed = ipt.transpose(queue, matrix)
    except ipt.Error as error:  # error.status, error.name, error.message
        print(error, file=sys.stderr)
        return 1
    correct = numpy.array_equal(transposed.get(), host.T)  # get() waits for its events
    print("%d x %d float32 matrix transposed in place on %s: %s"
          % (rows, cols, device.name.strip(), "equal to numpy's" if correct else "WRONG"))
    return 0 if correct else 1


if __name__ == "__main__":
    sys.exit(main())
