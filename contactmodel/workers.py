"""The worker pool the parameter sweeps (:mod:`contactmodel.sweep`) and the experiment runner
(:mod:`contactmodel.experiments.runner`) share: a forked process pool on this machine, or a Dask
cluster for more than one, each yielding results as they finish."""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import multiprocessing as mp
import signal
from collections.abc import Callable, Iterable, Iterator
from typing import Any


def die_with_parent() -> None:
    """Linux: get SIGKILL when the parent dies (no orphaned workers after kill -9)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def pool_results(fn: Callable[[Any], Any], items: Iterable[Any], workers: int) -> Iterator[Any]:
    """``fn(item)`` for every item in a forked process pool of ``workers``, yielded as each
    finishes (workers die with this process); on any exception, Ctrl-C included, the pool's
    processes are killed. Items are drawn from ``items`` only as workers free up, so a lazy
    iterable (e.g. one that claims each item in a shared store first) is consumed one item per
    free worker."""
    pool = cf.ProcessPoolExecutor(
        max_workers=workers, mp_context=mp.get_context("fork"), initializer=die_with_parent
    )
    source = iter(items)
    try:
        pending = {pool.submit(fn, item) for item in itertools.islice(source, workers)}
        while pending:
            done, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for future in done:
                yield future.result()
            pending |= {pool.submit(fn, item) for item in itertools.islice(source, workers - len(pending))}
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.kill()
        raise
    pool.shutdown(wait=True)


def dask_results(fn: Callable[[Any], Any], items: Iterable[Any], scheduler: Any) -> Iterator[Any]:
    """``fn(item)`` for every item on a Dask cluster (a scheduler address, or a
    ``distributed.Client``), yielded as each finishes. Items are drawn from ``items`` as the
    cluster's threads free up (two per thread in flight)."""
    from distributed import Client, as_completed

    own = not isinstance(scheduler, Client)
    client = Client(scheduler) if own else scheduler
    try:
        slots = 2 * max(1, sum(client.nthreads().values()))
        source = iter(items)
        first = list(itertools.islice(source, slots))
        if not first:
            return
        queue = as_completed(client.map(fn, first, pure=False))
        for future in queue:
            yield future.result()
            future.release()
            for item in itertools.islice(source, 1):
                queue.add(client.submit(fn, item, pure=False))
    finally:
        if own:
            client.close()
