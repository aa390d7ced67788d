# SPDX-License-Identifier: Apache-2.0
"""Loads libipt and declares the C functions the package calls (include/ipt/ipt.h).

ctypes needs every signature spelled out: without argtypes a size_t would be passed as a
C int and a pointer returned as one, both silently truncated on 64-bit machines.
"""

import ctypes
import ctypes.util
import os

# The environment variable that names the library file to load, before any other place.
LIBRARY_ENV = "IPT_LIBRARY"

# The SONAME carries the major version (docs/abi.md): every 1.x library keeps the ABI
# of 1.0, the structures below included, so a library of another major version is refused.
ABI_MAJOR = 1
_SONAME = "libipt.so.%d" % ABI_MAJOR

cl_handle = ctypes.c_void_p  # cl_command_queue, cl_mem, cl_event, cl_device_id, cl_context


class PlanOptionsStruct(ctypes.Structure):
    """struct ipt_plan_options."""
    _fields_ = [
        ("sequence", ctypes.c_int),
        ("m", ctypes.c_size_t),
        ("n", ctypes.c_size_t),
        ("padding", ctypes.c_int),
        ("padded_rows", ctypes.c_size_t),
        ("padded_cols", ctypes.c_size_t),
        ("max_bytes", ctypes.c_size_t),
    ]


class HostOptionsStruct(ctypes.Structure):
    """struct ipt_host_options."""
    _fields_ = [
        ("scheme", ctypes.c_int),
        ("threads", ctypes.c_uint),
        ("pinning", ctypes.c_int),
        ("slices", ctypes.c_uint),
    ]


class PlanInfoStruct(ctypes.Structure):
    """struct ipt_plan_info."""
    _fields_ = [
        ("sequence", ctypes.c_int),
        ("m", ctypes.c_size_t),
        ("n", ctypes.c_size_t),
        ("padded_rows", ctypes.c_size_t),
        ("padded_cols", ctypes.c_size_t),
        ("num_stages", ctypes.c_uint),
        ("scratch_bytes", ctypes.c_size_t),
        ("borrowed_bytes", ctypes.c_size_t),
        ("description", ctypes.c_char * 1024),
    ]


def _candidates():
    """Where to look for the library, in order, as (path, where it came from)."""
    explicit = os.environ.get(LIBRARY_ENV)
    if explicit:
        # An explicit choice is final: falling back to another copy would hide the mistake.
        return [(explicit, "$" + LIBRARY_ENV)]
    found = []
    try:
        from . import _build_config  # written by CMake; absent in the source tree
    except ImportError:
        _build_config = None
    if _build_config is not None:
        path = _build_config.LIBRARY
        if not os.path.isabs(path):  # an install tree: relative to this package
            path = os.path.join(os.path.dirname(os.path.abspath(__file__)), path)
        found.append((os.path.normpath(path), "the path CMake recorded"))
    found.append((_SONAME, "the dynamic loader's search path"))
    found.append((ctypes.util.find_library("ipt"), "ctypes.util.find_library('ipt')"))
    return [(path, origin) for path, origin in found if path]


def _open(path):
    """The library at `path` if it is a libipt of this ABI, else raises OSError saying why.

    The name alone proves nothing: Intel's processor-trace decoder is also libipt
    (libipt.so.2, which gdb pulls in on Debian), and find_library may well return it.
    """
    library = ctypes.CDLL(path)
    if not all(hasattr(library, name) for name in ("ipt_version", "ipt_transpose")):
        raise OSError("not this libipt (no ipt_transpose: another library of that name)")
    library.ipt_version.restype = ctypes.c_uint
    library.ipt_version.argtypes = []
    version = library.ipt_version()
    if version // 10000 != ABI_MAJOR:
        raise OSError("libipt %d.%d.%d; this package needs %d.x"
                      % (version // 10000, version // 100 % 100, version % 100, ABI_MAJOR))
    return library


def _load():
    tried = []
    for path, origin in _candidates():
        try:
            return _open(path), path
        except OSError as error:
            tried.append("  %s (%s): %s" % (path, origin, error))
    raise ImportError("ipt: cannot load libipt; tried:\n" + "\n".join(tried) +
                      "\nSet %s to the path of %s." % (LIBRARY_ENV, _SONAME))


lib, path = _load()

_signatures = {
    "ipt_status_string": (ctypes.c_char_p, [ctypes.c_int]),
    "ipt_last_error_message": (ctypes.c_char_p, []),
    "ipt_version": (ctypes.c_uint, []),
    "ipt_version_string": (ctypes.c_char_p, []),
    "ipt_sequence_name": (ctypes.c_char_p, [ctypes.c_int]),
    "ipt_transpose": (ctypes.c_int, [
        cl_handle, cl_handle, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t,
        ctypes.c_uint32, ctypes.POINTER(cl_handle), ctypes.POINTER(cl_handle),
        ctypes.c_size_t]),
    "ipt_transpose_with_options": (ctypes.c_int, [
        cl_handle, cl_handle, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t,
        ctypes.c_size_t, ctypes.POINTER(PlanOptionsStruct), ctypes.c_uint32,
        ctypes.POINTER(cl_handle), ctypes.POINTER(cl_handle)]),
    "ipt_padded_size": (ctypes.c_int, [
        cl_handle, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t,
        ctypes.POINTER(ctypes.c_size_t)]),
    "ipt_plan": (ctypes.c_int, [
        cl_handle, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t,
        ctypes.POINTER(PlanOptionsStruct), ctypes.POINTER(PlanInfoStruct)]),
    "ipt_warmup": (ctypes.c_int, [cl_handle, cl_handle, ctypes.c_size_t]),
    "ipt_clear_cache": (ctypes.c_int, []),
    "ipt_transpose_host": (ctypes.c_int, [
        cl_handle, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t,
        ctypes.POINTER(HostOptionsStruct)]),
    "ipt_transpose_batched": (ctypes.c_int, [
        cl_handle, cl_handle, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t,
        ctypes.c_size_t, ctypes.c_uint32, ctypes.POINTER(cl_handle), ctypes.POINTER(cl_handle),
        ctypes.c_size_t]),
    "ipt_permute": (ctypes.c_int, [
        cl_handle, cl_handle, ctypes.c_size_t, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t),
        ctypes.POINTER(ctypes.c_size_t), ctypes.c_size_t, ctypes.c_uint32,
        ctypes.POINTER(cl_handle), ctypes.POINTER(cl_handle)]),
    "ipt_import_memory_fd": (ctypes.c_int, [
        cl_handle, cl_handle, ctypes.c_int, ctypes.c_size_t, ctypes.POINTER(cl_handle)]),
    "ipt_imatcopy": (ctypes.c_int, [
        cl_handle, ctypes.c_char, ctypes.c_char, ctypes.c_size_t, ctypes.c_size_t,
        ctypes.c_void_p, cl_handle, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t,
        ctypes.c_uint32, ctypes.POINTER(cl_handle), ctypes.POINTER(cl_handle), ctypes.c_size_t,
        ctypes.c_int]),
}
for _name, (_restype, _argtypes) in _signatures.items():
    _function = getattr(lib, _name)
    _function.restype = _restype
    _function.argtypes = _argtypes
