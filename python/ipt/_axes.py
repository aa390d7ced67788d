# SPDX-License-Identifier: Apache-2.0
"""The axes argument of ipt.permute and ipt.cuda.permute, checked in one place."""

MAX_RANK = 8  # IPT_MAX_RANK


def checked_axes(ndim, axes, what):
    """`axes` as a tuple of ints, a permutation of 0 .. ndim - 1 (None: reversed), for an
    array of `ndim` axes; TypeError or ValueError naming `what` otherwise."""
    if not 1 <= ndim <= MAX_RANK:
        raise ValueError("%s: %d axes; libipt permutes 1 to %d" % (what, ndim, MAX_RANK))
    if axes is None:
        return tuple(reversed(range(ndim)))
    try:
        axes = tuple(int(a) for a in axes)
    except TypeError:
        raise TypeError("%s: axes must be a sequence of integers, not %s"
                        % (what, type(axes).__name__)) from None
    if sorted(axes) != list(range(ndim)):
        raise ValueError("%s: axes %s are not a permutation of 0 .. %d" % (what, axes, ndim - 1))
    return axes
