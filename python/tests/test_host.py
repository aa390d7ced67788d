# SPDX-License-Identifier: Apache-2.0
"""ipt.transpose_host: numpy arrays in host memory, through the device and on the CPU."""

import numpy
import pytest

import ipt


@pytest.mark.parametrize("scheme", ["device", "cpu", "auto"])
@pytest.mark.parametrize("dtype", [numpy.uint8, numpy.float16, numpy.float32, numpy.float64,
                                   numpy.complex128])
@pytest.mark.parametrize("shape", [(1, 1), (97, 89), (64, 64), (3, 1000), (300, 211)])
def test_matches_numpy(queue, random_matrix, scheme, dtype, shape):
    # The matrix sits inside a larger array whose other bytes must not change.
    whole = random_matrix((shape[0] * shape[1] + 64,), dtype)
    before = whole.copy()
    a = whole[32:32 + shape[0] * shape[1]].reshape(shape)
    expected = a.T.copy()
    t = ipt.transpose_host(a, queue if scheme != "cpu" else None, scheme=scheme, threads=3,
                           pin="on" if shape[0] % 2 else "off", slices=shape[1] % 4)
    assert t.shape == (shape[1], shape[0])
    assert numpy.shares_memory(t, a)
    assert t.tobytes() == expected.tobytes()
    assert whole[:32].tobytes() == before[:32].tobytes()
    assert whole[-32:].tobytes() == before[-32:].tobytes()


def test_refusals_leave_the_array(queue, random_matrix):
    a = random_matrix((20, 30), numpy.float32)
    before = a.copy()
    with pytest.raises(TypeError):
        ipt.transpose_host(a.tolist())
    with pytest.raises(ValueError):
        ipt.transpose_host(a[:, ::2])  # not contiguous
    with pytest.raises(ValueError):
        ipt.transpose_host(a, scheme="gpu")
    with pytest.raises(ValueError):
        ipt.transpose_host(a.reshape(2, 10, 30))
    with pytest.raises(ValueError):
        ipt.transpose_host(a, slices=-1)
    with pytest.raises(ipt.Error) as too_many:
        ipt.transpose_host(a, queue, scheme="device", slices=17)
    assert too_many.value.status == ipt.Status.INVALID_VALUE
    with pytest.raises(ipt.Error) as raised:
        ipt.transpose_host(a, None, scheme="device")
    assert raised.value.status == ipt.Status.INVALID_COMMAND_QUEUE
    assert a.tobytes() == before.tobytes()
