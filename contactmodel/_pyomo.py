"""The Pyomo names the package uses, imported in one place (every module takes them from here).

- ``pyomo.core`` and ``pyomo.mpec`` hold all the modelling the package needs; ``pyomo.environ``
  would also load every solver and transformation plugin (about as long again as ``pyomo.core``).
  Only the code that runs a Pyomo solver (``solvers/path.py``) imports ``pyomo.environ``, itself.
- Pyomo would import ``scipy.stats``, ``scipy.integrate`` and ``scipy.spatial`` (about 1 s, most of
  a ``contactmodel solve``) for optional features the package never uses: ``pyomo.common.dependencies``
  "finalizes" SciPy at once when SciPy is already imported, and otherwise installs an import hook
  that does it when SciPy is imported later. Pyomo defers that work to its own first use of SciPy
  when SciPy is not yet imported; so SciPy is imported here first and kept out of ``sys.modules``
  while ``pyomo.common.dependencies`` is first imported. Afterwards every ``import scipy`` finds the
  module already loaded, so the hook has nothing to do. (When the caller imported Pyomo before
  SciPy and before this module, Pyomo's hook runs as usual.) ``tests/test_import_time.py``
  checks that the command line's solve never loads ``scipy.stats``.
"""

# ruff: noqa: I001, F401  (the order is the point: SciPy, then Pyomo; the names are re-exported)

import contextlib
import gc
import sys
from collections.abc import Iterator

import scipy

if "pyomo.common.dependencies" not in sys.modules:
    _scipy = sys.modules.pop("scipy")
    try:
        import pyomo.common.dependencies
    finally:
        sys.modules["scipy"] = _scipy
    del _scipy

import pyomo.core as pe
from pyomo.common.gc_manager import PauseGC
from pyomo.common.numeric_types import native_numeric_types
from pyomo.core.base.block import BlockData, declare_custom_block
from pyomo.core.base.constraint import ConstraintData
from pyomo.core.base.param import ParamData
from pyomo.core.base.var import VarData
from pyomo.core.expr.calculus.derivatives import Modes, differentiate
from pyomo.core.expr.numeric_expr import (
    LinearExpression,
    MonomialTermExpression,
    NegationExpression,
    SumExpression,
)
from pyomo.core.expr.relational_expr import EqualityExpression, InequalityExpression, RangedExpression
from pyomo.core.expr.visitor import identify_variables
from pyomo.mpec import Complementarity, complements
from pyomo.mpec.complementarity import ComplementarityData
from pyomo.repn import generate_standard_repn


@contextlib.contextmanager
def building() -> Iterator[None]:
    """Build a large graph of objects (a model, its compilation) without the cyclic garbage
    collector: paused while building (Pyomo's PauseGC, as Pyomo's own writers do), then the new
    objects handed to its oldest generation at once (:func:`settle`). Otherwise the next two
    young collections each walk the whole new model (1000 contacts: ~0.15 s of a quiet machine's
    compile and first solve)."""
    with PauseGC():
        yield
        settle()


#: objects handed to the oldest generation between two full collections (at least; twice the
#: largest model so handed if more); past it, :func:`settle` runs a full collection instead, so
#: models built and dropped in a loop are still freed
SETTLE_LIMIT = 500_000
_settled = {"objects": 0, "largest": 0, "full": -1}


def settle() -> None:
    """Move every object the collector tracks into its oldest generation without a pass over
    them (``gc.freeze()`` then ``gc.unfreeze()``). They stay collectable: the next full collection
    examines them like any old object. Once more than :data:`SETTLE_LIMIT` objects, or twice the
    largest batch, were moved since the last full collection, a full collection runs instead
    (one model and its compilation are always settled). Nothing is done when the program keeps
    objects frozen itself (``gc.get_freeze_count()``)."""
    if gc.get_freeze_count():
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
