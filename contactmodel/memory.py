"""The cyclic garbage collector around the building of large graphs of small objects (a Pyomo
model, a compilation, an answer's results): paused while they are made, then the new objects
handed to its oldest generation at once. Nothing here imports Pyomo."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def building(counted: bool = True) -> Iterator[None]:
    """Build a large graph of objects (a model, its compilation) without the cyclic garbage
    collector: paused while building (as Pyomo's own writers do, with its PauseGC), then the new
    objects handed to its oldest generation at once (:func:`settle`, with ``counted``). Otherwise
    the next two young collections each walk the whole new model (1000 contacts: ~0.15 s of a
    quiet machine's compile and first solve)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
        settle(counted)
    finally:
        if enabled:
            gc.enable()


#: objects handed to the oldest generation between two full collections (at least; twice the
#: largest model so handed if more); past it, :func:`settle` runs a full collection instead, so
#: models built and dropped in a loop are still freed
SETTLE_LIMIT = 500_000
_settled = {"objects": 0, "largest": 0, "full": -1}


def settle(counted: bool = True) -> None:
    """Move every object the collector tracks into its oldest generation without a pass over
    them (``gc.freeze()`` then ``gc.unfreeze()``). They stay collectable: the next full collection
    examines them like any old object. Once more than :data:`SETTLE_LIMIT` objects, or twice the
    largest batch, were moved since the last full collection, a full collection runs instead
    (one model and its compilation are always settled). Nothing is done when the program keeps
    objects frozen itself (``gc.get_freeze_count()``). ``counted=False``: objects taken to be
    long-lived (an answer's results) are moved without counting toward that full collection,
    which they would bring on every few solves of a large problem; any garbage among them waits
    for the collector's own next full pass."""
    if gc.get_freeze_count():
        return
    if not counted:
        gc.freeze()
        gc.unfreeze()
        return
    full = gc.get_stats()[-1]["collections"]
    if full != _settled["full"]:
        _settled.update(objects=0, largest=0, full=full)
    new = gc.get_count()[0]  # tracked objects made since the last young collection
    largest = max(_settled["largest"], new)
    if _settled["objects"] and _settled["objects"] + new > max(SETTLE_LIMIT, 2 * largest):
        gc.collect()
        _settled.update(objects=0, largest=0, full=gc.get_stats()[-1]["collections"])
        return
    gc.freeze()
    gc.unfreeze()
    _settled.update(objects=_settled["objects"] + new, largest=largest)
