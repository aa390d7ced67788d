# SPDX-License-Identifier: Apache-2.0
"""Work started on a thread of its own, with a concurrent.futures.Future for its end: the
non-blocking form of the warm-ups (libipt's calls release the interpreter's lock)."""

import concurrent.futures
import threading


def started(work, name):
    """Runs work() on a new thread (not a daemon: the process waits for it before it
    exits) and returns a Future that is done when it returns, with its result, or with
    what it raised."""
    future = concurrent.futures.Future()

    def run():
        if not future.set_running_or_notify_cancel():
            return
        try:
            result = work()
        except BaseException as error:  # handed to the caller through the future
            future.set_exception(error)
        else:
            future.set_result(result)

    threading.Thread(target=run, name=name).start()
    return future
