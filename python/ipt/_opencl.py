# SPDX-License-Identifier: Apache-2.0
"""The few OpenCL calls ipt.cuda makes itself, through ctypes (pyopencl is not needed):
finding the OpenCL device of a CUDA device, a context and queue on it, and waiting for
and releasing events and buffers."""

import ctypes
import ctypes.util

cl_int = ctypes.c_int32
cl_uint = ctypes.c_uint32
handle = ctypes.c_void_p

CL_DEVICE_TYPE_GPU = 1 << 2
CL_PLATFORM_NAME = 0x0902
CL_DEVICE_NAME = 0x102B
CL_DEVICE_UUID_KHR = 0x106A
CL_EVENT_COMMAND_TYPE = 0x11D1

_lib = None


def library():
    """libOpenCL (the ICD loader), loaded on first use; OSError when it is absent."""
    global _lib
    if _lib is None:
        path = ctypes.util.find_library("OpenCL") or "libOpenCL.so.1"
        lib = ctypes.CDLL(path)
        signatures = {
            "clGetPlatformIDs": [cl_uint, ctypes.POINTER(handle), ctypes.POINTER(cl_uint)],
            "clGetPlatformInfo": [handle, cl_uint, ctypes.c_size_t, ctypes.c_void_p,
                                  ctypes.POINTER(ctypes.c_size_t)],
            "clGetDeviceIDs": [handle, ctypes.c_uint64, cl_uint, ctypes.POINTER(handle),
                               ctypes.POINTER(cl_uint)],
            "clGetDeviceInfo": [handle, cl_uint, ctypes.c_size_t, ctypes.c_void_p,
                                ctypes.POINTER(ctypes.c_size_t)],
            "clGetEventInfo": [handle, cl_uint, ctypes.c_size_t, ctypes.c_void_p,
                               ctypes.POINTER(ctypes.c_size_t)],
            "clWaitForEvents": [cl_uint, ctypes.POINTER(handle)],
            "clReleaseEvent": [handle],
            "clReleaseMemObject": [handle],
        }
        for name, argtypes in signatures.items():
            function = getattr(lib, name)
            function.argtypes = argtypes
            function.restype = cl_int
        lib.clCreateContext.argtypes = [ctypes.c_void_p, cl_uint, ctypes.POINTER(handle),
                                        ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(cl_int)]
        lib.clCreateContext.restype = handle
        lib.clCreateCommandQueue.argtypes = [handle, handle, ctypes.c_uint64,
                                             ctypes.POINTER(cl_int)]
        lib.clCreateCommandQueue.restype = handle
        _lib = lib
    return _lib


class OpenCLError(RuntimeError):
    """An OpenCL call that ipt.cuda made itself failed."""


def check(code, what):
    if code != 0:
        raise OpenCLError("%s failed with OpenCL error %d" % (what, code))


def _info(getter, obj, param, size):
    value = ctypes.create_string_buffer(size)
    used = ctypes.c_size_t()
    check(getter(obj, param, size, value, ctypes.byref(used)), getter.__name__)
    return value.raw[:used.value]


def gpu_devices():
    """[(platform name, device name, device handle, uuid bytes or None)] of every GPU."""
    lib = library()
    count = cl_uint()
    if lib.clGetPlatformIDs(0, None, ctypes.byref(count)) != 0 or count.value == 0:
        return []
    platforms = (handle * count.value)()
    check(lib.clGetPlatformIDs(count.value, platforms, None), "clGetPlatformIDs")
    found = []
    for platform in platforms:
        name = _info(lib.clGetPlatformInfo, platform, CL_PLATFORM_NAME, 256).rstrip(b"\0")
        n = cl_uint()
        if lib.clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 0, None, ctypes.byref(n)) != 0:
            continue
        devices = (handle * n.value)()
        check(lib.clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, n.value, devices, None),
              "clGetDeviceIDs")
        for device in devices:
            device_name = _info(lib.clGetDeviceInfo, device, CL_DEVICE_NAME, 256).rstrip(b"\0")
            try:
                uuid = _info(lib.clGetDeviceInfo, device, CL_DEVICE_UUID_KHR, 16)
            except OpenCLError:
                uuid = None  # no cl_khr_device_uuid
            found.append((name.decode(), device_name.decode(), device, uuid))
    return found


def create_context_and_queue(device):
    """A context of `device` alone and an in-order queue on it."""
    lib = library()
    status = cl_int()
    devices = (handle * 1)(device)
    context = lib.clCreateContext(None, 1, devices, None, None, ctypes.byref(status))
    check(status.value, "clCreateContext")
    queue = lib.clCreateCommandQueue(context, device, 0, ctypes.byref(status))
    check(status.value, "clCreateCommandQueue")
    return context, queue


def wait_and_release(event):
    """Waits for `event` (a handle the caller owns) and releases it."""
    lib = library()
    events = (handle * 1)(event)
    try:
        check(lib.clWaitForEvents(1, events), "clWaitForEvents")
    finally:
        lib.clReleaseEvent(event)


def command_type(event):
    """CL_EVENT_COMMAND_TYPE of `event`."""
    value = cl_uint()
    check(library().clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, ctypes.sizeof(value),
                                   ctypes.byref(value), None), "clGetEventInfo")
    return value.value


def release_buffer(buffer):
    library().clReleaseMemObject(buffer)
