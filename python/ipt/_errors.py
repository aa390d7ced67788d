# SPDX-License-Identifier: Apache-2.0
"""The library's status codes as Python exceptions."""

import enum

from . import _library


class Status(enum.IntEnum):
    """enum ipt_status of include/ipt/ipt.h (values are OpenCL error codes where one fits).

    Other negative values in -1 .. -999 are OpenCL errors passed through from the driver;
    Error.status keeps them as plain ints.
    """
    SUCCESS = 0
    OUT_OF_RESOURCES = -5
    OUT_OF_HOST_MEMORY = -6
    BUILD_PROGRAM_FAILURE = -11
    INVALID_VALUE = -30
    INVALID_DEVICE = -33
    INVALID_CONTEXT = -34
    INVALID_COMMAND_QUEUE = -36
    INVALID_MEM_OBJECT = -38
    INVALID_EVENT_WAIT_LIST = -57
    INVALID_ELEMENT_SIZE = -1001
    SIZE_OVERFLOW = -1002
    BUFFER_TOO_SMALL = -1003
    FP64_NOT_SUPPORTED = -1004
    MATRIX_TOO_LARGE = -1005
    ROLLED_BACK = -1006
    BUFFER_UNDEFINED = -1007
    EXTERNAL_MEMORY_UNSUPPORTED = -1008
    INTERNAL_ERROR = -1999


class Error(Exception):
    """A libipt call returned an error status. The buffer is unchanged (nothing was
    enqueued), except for ROLLED_BACK (what was enqueued is undone: the array's events say
    when its bytes are back) and BUFFER_UNDEFINED (the matrix's contents are undefined).

    Attributes: status (a Status, or an int for an OpenCL code the enum does not name),
    name (ipt_status_string: the status's name and meaning) and message
    (ipt_last_error_message: which check or OpenCL call failed, or a build log).
    """

    def __init__(self, status, name, message, function):
        self.status = status
        self.name = name
        self.message = message
        self.function = function
        text = "%s: %s" % (function, name)
        if message:
            text += "\n" + message
        super().__init__(text)


def check(status, function):
    """Raises Error for a non-zero status of `function` (its C name)."""
    if status == Status.SUCCESS:
        return
    # The message first: it is only valid until this thread's next libipt call.
    message = _library.lib.ipt_last_error_message().decode("utf-8", "replace")
    name = _library.lib.ipt_status_string(status).decode("utf-8", "replace")
    try:
        status = Status(status)
    except ValueError:
        pass
    raise Error(status, name, message, function)
