"""The run lock: .lock in a run folder, held with an OS lock (flock) while a run writes, so
that a second run on the same folder is refused and a killed run leaves no stale lock behind."""

import errno
import fcntl
import os
from pathlib import Path
from typing import TextIO

from terra_sim.core.errors import UserError

LOCK_FILE = ".lock"


class RunLock:
    """An exclusive OS lock on a run folder's .lock file, held while a run writes the folder.

    flock belongs to the open file: it ends when the process ends, however it ends, so a killed
    run leaves no stale lock. Worker processes must close their inherited copy (`fd`)."""

    def __init__(self, run_dir: Path):
        self.path = Path(run_dir) / LOCK_FILE
        self._file: TextIO | None = None

    @property
    def fd(self) -> int | None:
        return self._file.fileno() if self._file is not None else None

    def acquire(self) -> "RunLock":
        f = open(self.path, "a+")  # noqa: SIM115 - held open for as long as the run writes
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            f.seek(0)
            holder = f.read().strip()
            f.close()
            if e.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise UserError(f"cannot lock {self.path.parent}: {e.strerror}") from None
            who = f" (process {holder})" if holder.isdigit() else ""
            raise UserError(f"{self.path.parent} is in use by another terra-sim run{who}; "
                            "wait for it to end, or choose another --out") from None
        f.seek(0)
        f.truncate()
        f.write(f"{os.getpid()}\n")
        f.flush()
        self._file = f
        return self

    def release(self) -> None:
        if self._file is not None:
            self._file.close()  # closing ends the flock
            self._file = None

    def __enter__(self) -> "RunLock":
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

