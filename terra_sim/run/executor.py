"""Where a run's games are played: the Executor protocol the runner holds (handed a Job, job.py)
and the small registry that picks an executor by name. The runner names no executor; a
third one (a job queue, another cluster) implements the protocol and joins the registry."""

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

from terra_sim.core.errors import UserError
from terra_sim.run.job import Job


class Executor(Protocol):
    def describe(self) -> dict[str, Any]:
        """For the manifest: which executor played a session's games (never what they are)."""
        ...

    def check(self) -> None:
        """Refuse what cannot work (an unreachable cluster) before the run folder is made."""
        ...

    def session(self, workers: int) -> AbstractContextManager[None]:
        """Around every play_all of one run: what is costly to start (a cluster) starts once."""
        ...

    def play_all(self, todo: list[int], job: Job) -> None:
        """Play games `todo` of the job's run, writing each finished chunk's part files into
        the run folder as it comes. Changes no game: game i depends on the plan and i alone."""
        ...


def choose(name: str | None = None, scheduler: str | None = None,
           shared_dir: str | Path | None = None) -> Executor:
    """The executor the options ask for: "local" (the default) or "dask"; a scheduler or a
    shared folder imply Dask."""
    dask_only = [o for o, v in (("--scheduler", scheduler), ("--shared-dir", shared_dir)) if v]
    if name == "local" and dask_only:
        raise UserError(f"{' and '.join(dask_only)} only apply to --executor dask")
    if name == "dask" or dask_only:
        from terra_sim.run.dask_executor import DaskExecutor

        return DaskExecutor(scheduler, Path(shared_dir) if shared_dir else None)
    if name not in (None, "local"):
        raise UserError(f"unknown executor {name!r} (valid: local, dask)")
    from terra_sim.run.local import LocalExecutor

    return LocalExecutor()
