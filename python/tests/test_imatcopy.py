# SPDX-License-Identifier: Apache-2.0
"""ipt.transpose_batched and ipt.imatcopy against numpy: batches, MKL's imatcopy with
strides, alpha and conjugation, raw elements, and what the package refuses."""

import numpy
import pyopencl.array as cla
import pytest

import ipt


def test_transpose_batched(queue, random_matrix):
    for dtype in (numpy.float32, numpy.complex128, numpy.uint8):
        host = random_matrix((5 * 30, 17), dtype).reshape(5, 30, 17)
        array = cla.to_device(queue, host)
        result = ipt.transpose_batched(queue, array)
        assert result.shape == (5, 17, 30) and result.base_data is array.base_data
        numpy.testing.assert_array_equal(result.get().view(numpy.uint8),
                                         numpy.ascontiguousarray(host.transpose(0, 2, 1))
                                         .view(numpy.uint8))


def numbers(count, dtype, seed):
    """Random values of full precision: random signs, random mantissas, |x| in
    [2^-8, 2^9), never zero, so that a product with a full alpha rounds."""
    generator = numpy.random.default_rng(seed)
    real = numpy.dtype(dtype).type(0).real.dtype
    def part():
        # uniform's doubles carry 52 random bits of mantissa; the cast rounds them to the
        # part's precision, which stays within [1, 2] times the power of two.
        mantissa = generator.uniform(1, 2, count).astype(real)
        return (generator.choice([-1, 1], count).astype(real) * mantissa
                * numpy.ldexp(real.type(1), generator.integers(-8, 9, count)))
    if numpy.dtype(dtype).kind != "c":
        return part().astype(dtype)
    values = numpy.empty(count, dtype)
    values.real, values.imag = part(), part()
    return values


def scaled(alpha, op):
    """alpha * op as the kernels compute it (docs/imatcopy.md), in the element's own
    precision, each operation rounded on its own: a x for real types, (ar xr - ai xi) +
    (ar xi + ai xr)i for complex ones. Each numpy operation below is a ufunc of its own,
    so that nothing can fuse two of them into a multiply-add; numpy's complex multiply is
    not used, as it need not round the same way."""
    if op.dtype.kind != "c":
        return op.dtype.type(alpha) * op
    real = op.real.dtype.type
    ar, ai = real(alpha.real), real(alpha.imag)
    xr, xi = op.real, op.imag
    result = numpy.empty(op.shape, op.dtype)
    result.real = ar * xr - ai * xi
    result.imag = ar * xi + ai * xr
    return result


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64, numpy.complex64,
                                   numpy.complex128])
@pytest.mark.parametrize("ordering", ["R", "C"])
@pytest.mark.parametrize("trans", ["N", "T", "C", "R"])
def test_imatcopy_matches_numpy(queue, dtype, ordering, trans):
    # Catalan's constant and -W(1): full mantissas in float and double, so that the
    # bit-for-bit comparison sees a product computed in another precision or fused.
    rows, cols, alpha = 13, 7, 0.915965594177219 - 0.5671432904097838j
    if numpy.dtype(dtype).kind != "c":
        alpha = alpha.real
    # The row-major view: a column-major rows x cols matrix is cols x rows row-major.
    view_rows, view_cols = (cols, rows) if ordering == "C" else (rows, cols)
    transposes = trans in "TC"
    lda = view_cols + 3
    ldb = (view_rows if transposes else view_cols) + 2
    rows_after = view_cols if transposes else view_rows
    extent = max((view_rows - 1) * lda + view_cols,
                 (rows_after - 1) * ldb + (view_rows if transposes else view_cols))
    flat = numbers(extent, dtype, 7)
    a = numpy.array([flat[r * lda: r * lda + view_cols] for r in range(view_rows)])
    op = a.T if transposes else a
    if trans in "CR" and numpy.dtype(dtype).kind == "c":
        op = numpy.conj(op)
    expected = scaled(alpha, op)
    array = cla.to_device(queue, flat)
    ipt.imatcopy(queue, array, ordering, trans, rows, cols, alpha, lda, ldb).wait()
    now = array.get()
    got = numpy.array([now[r * ldb: r * ldb + expected.shape[1]] for r in range(rows_after)])
    # Bit for bit: the same type, the same bytes (signs of zeros included).
    assert got.dtype == expected.dtype
    numpy.testing.assert_array_equal(numpy.ascontiguousarray(got).view(numpy.uint8),
                                     numpy.ascontiguousarray(expected).view(numpy.uint8))


def test_imatcopy_raw_elements_bit_for_bit(queue, random_matrix):
    rows, cols = 9, 20  # column-major: A's columns of 9, B's of 20
    flat = random_matrix((1, 10 * cols + 5), numpy.uint16).ravel()
    a = numpy.array([flat[c * 10: c * 10 + rows] for c in range(cols)])  # lda 10
    array = cla.to_device(queue, flat)
    ipt.imatcopy(queue, array, "C", "T", rows, cols, lda=10, ldb=cols).wait()
    now = array.get()
    numpy.testing.assert_array_equal(now[: rows * cols].reshape(rows, cols), a.T)


def test_imatcopy_refusals(queue, random_matrix):
    raw = cla.to_device(queue, random_matrix((1, 64), numpy.uint8).ravel())
    with pytest.raises(ValueError):
        ipt.imatcopy(queue, raw, "R", "T", 8, 8, alpha=2.0)  # raw elements take no alpha
    with pytest.raises(ValueError):
        ipt.imatcopy(queue, raw, "R", "T", 8, 9)  # 72 elements in an array of 64
    floats = cla.to_device(queue, numbers(64, numpy.float32, 1))
    before = floats.get()
    with pytest.raises(ValueError):
        ipt.imatcopy(queue, floats, "R", "T", 8, 8, alpha=1j)  # a complex alpha for floats
    with pytest.raises(ipt.Error) as error:
        ipt.imatcopy(queue, floats, "R", "X", 8, 8)
    assert error.value.status == ipt.Status.INVALID_VALUE
    with pytest.raises(ipt.Error):
        ipt.imatcopy(queue, floats, "R", "T", 8, 8, lda=7)
    numpy.testing.assert_array_equal(floats.get(), before)
