"""A barrier inside a workflow's own processes, for tests that stop or inspect a run at an exact point.

On PYTHONPATH (tests/barrier.py puts it there), with CARDLAB_TEST_BARRIER_SUFFIX and
CARDLAB_TEST_BARRIER_DIR set: the first CARDLAB_TEST_BARRIER_PASS (default 0) renames into place
(``os.replace``) of a file whose name ends with the suffix go through; each later one first
records that it is there (``slot.<i>`` in the directory: the event the test waits on) and then
opens the FIFO ``release`` in the directory, which blocks until the test opens it for writing
(never, where the test kills the run there).  Slots are claimed with O_EXCL, so exactly PASS
renames go through however many processes race for them.  Without the variables: nothing.
"""

import os

_SUFFIX = os.environ.get("CARDLAB_TEST_BARRIER_SUFFIX")
_DIR = os.environ.get("CARDLAB_TEST_BARRIER_DIR")

if _SUFFIX and _DIR:
    _PASS = int(os.environ.get("CARDLAB_TEST_BARRIER_PASS", "0"))
    _real_replace = os.replace

    def _claim() -> int:
        i = 0
        while True:
            try:
                os.close(os.open(os.path.join(_DIR, f"slot.{i}"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                return i
            except FileExistsError:
                i += 1

    def _replace(src, dst, *args, **kwargs):
        if os.fspath(dst).endswith(_SUFFIX) and _claim() >= _PASS:
            with open(os.path.join(_DIR, "release")):  # blocks until the test opens it for writing
                pass
        return _real_replace(src, dst, *args, **kwargs)

    os.replace = _replace
