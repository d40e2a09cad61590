"""The worker pool the parameter sweeps (:mod:`contactmodel.sweep`) and the experiment runner
(:mod:`contactmodel.experiments.runner`) share: a forked process pool on this machine, or a Dask
cluster for more than one, each yielding results as they finish."""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import Any


def die_with_parent() -> None:
    """Linux: get SIGKILL when the parent dies (no orphaned workers after kill -9)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def pool_results(fn: Callable[[Any], Any], items: Sequence[Any], workers: int) -> Iterator[Any]:
    """``fn(item)`` for every item in a forked process pool of ``workers``, yielded as each
    finishes (workers die with this process); on any exception, Ctrl-C included, the pool's
    processes are killed."""
    pool = cf.ProcessPoolExecutor(
        max_workers=workers, mp_context=mp.get_context("fork"), initializer=die_with_parent
    )
    try:
        futures = [pool.submit(fn, item) for item in items]
        for future in cf.as_completed(futures):
            yield future.result()
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.kill()
        raise
    pool.shutdown(wait=True)


def dask_results(fn: Callable[[Any], Any], items: Sequence[Any], scheduler: Any) -> Iterator[Any]:
    """``fn(item)`` for every item on a Dask cluster (a scheduler address, or a
    ``distributed.Client``), yielded as each finishes."""
    from distributed import Client, as_completed

    own = not isinstance(scheduler, Client)
    client = Client(scheduler) if own else scheduler
    try:
        futures = client.map(fn, list(items), pure=False)
        for future in as_completed(futures):
            yield future.result()
            future.release()
    finally:
        if own:
            client.close()
