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

import functools
import sys
import weakref
from collections.abc import Mapping

import numpy as np
import scipy

if "pyomo.common.dependencies" not in sys.modules:
    _scipy = sys.modules.pop("scipy")
    try:
        import pyomo.common.dependencies
    finally:
        sys.modules["scipy"] = _scipy
    del _scipy

import pyomo.core as pe
from pyomo.common.autoslots import AutoSlots
from pyomo.common.numeric_types import native_numeric_types
from pyomo.core.base.block import BlockData, declare_custom_block
from pyomo.core.base.component_namer import index_repr
from pyomo.core.base.constraint import ConstraintData
from pyomo.core.base.expression import ExpressionData
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
from pyomo.core.expr.visitor import evaluate_expression, identify_variables
from pyomo.mpec import Complementarity, complements
from pyomo.mpec.complementarity import ComplementarityData
from pyomo.repn import generate_standard_repn
from pyomo.core.staleflag import StaleFlagManager


# -- components declared by copying one Pyomo built ------------------------------------------
# Declaring a small component on a contact block costs Pyomo 30-80 us (keyword parsing,
# initializers, construction, add_component's checks), and a formulation of 1000 contacts declares
# 7-8 per contact. The functions below give the same component -- same class, same attributes, same
# place in the block -- by copying the attributes of a prototype that Pyomo itself declared once
# (on a scratch model, per kind), then filling in the parts of its own: its entries, their values
# or expressions, its index Set, its name and parent. Only attributes that Pyomo itself set on the
# prototype are copied, so a Pyomo version that adds one is followed;
# tests/test_stamped_components.py checks every kind against Pyomo's own declaration (attributes,
# entries, the block's records, and whole formulated models printed with STAMPED off and on), and
# _attach_agrees checks once per process that the installed Pyomo's blocks keep the records _attach writes.

#: declare the contact blocks' components by copying prototypes (False: Pyomo's own declarations,
#: the same model, slower; the tests compare the two)
STAMPED = True

_PROTOTYPES: dict[tuple, object] = {}
_SCRATCH: list = []  # the scratch models holding the prototypes
_set_slot = object.__setattr__  # slots of a BlockData, past its own __setattr__


#: a component's attributes a copy gets of its own (the others are the prototype's, shared)
_OWN_ATTRIBUTES = frozenset(
    ("_data", "_parent", "_name", "_index_set", "_rule", "_ctypes", "_decl", "_decl_order")
)


def _prototype(key: tuple, declare):
    """The component Pyomo declared for ``key`` (``declare(index)`` on a scratch model whose
    ``members`` Set holds the one member "k"); None when STAMPED is off, or when copies could not
    share the prototype's other attributes: a container among them (a Pyomo version's new
    attribute) or, for a block, components of its own (declared by its class)."""
    if not STAMPED or not _attach_agrees():
        return None
    proto = _PROTOTYPES.get(key)
    if proto is None:
        scratch = pe.ConcreteModel(name="prototypes")
        scratch.members = pe.Set(initialize=("k",), ordered=True)
        scratch.add_component("proto", declare(scratch.members))
        _SCRATCH.append(scratch)
        proto = scratch.proto
        shared = [
            k for k, v in vars(proto).items() if k not in _OWN_ATTRIBUTES and isinstance(v, (dict, list, set))
        ]
        if shared or (isinstance(proto, BlockData) and proto._decl):
            proto = False  # Pyomo's own declarations for this kind
        _PROTOTYPES[key] = proto
    return None if proto is False else proto


def _copy(proto, index) -> object:
    """A new component of the prototype's class with the prototype's attributes (entries, name
    and parent to be set by the caller); ``index`` its index Set (None: unindexed)."""
    obj = proto.__class__.__new__(proto.__class__)
    obj.__dict__.update(proto.__dict__)
    if index is not None:
        obj._index_set = index
    return obj


def _attach(blk, name: str, obj) -> None:
    """Add the constructed component ``obj`` to ``blk`` as ``name``: what Block.add_component records
    (name, parent, declaration order, the per-ctype chain, the attribute), without its checks for
    cases that cannot occur here (a component already owned, the model itself) or construction."""
    if name in blk.__dict__ or name in blk._Block_reserved_words:
        blk.add_component(name, obj)  # Pyomo's own error
    _set_slot(obj, "_parent", weakref.ref(blk))  # past a Block's own __setattr__
    _set_slot(obj, "_name", name)
    order = blk._decl_order
    i = len(order)
    blk._decl[name] = i
    order.append((obj, None))
    blk.__dict__[name] = obj
    chain = blk._ctypes.get(obj._ctype)
    if chain is None:
        blk._ctypes[obj._ctype] = [i, i, 1]
    else:
        last = chain[1]
        order[last] = (order[last][0], i)
        chain[1] = i
        chain[2] += 1


@functools.cache
def _attach_agrees() -> bool:
    """Whether :func:`_attach` records what ``Block.add_component`` does in the installed Pyomo
    (declaration map, order with its per-ctype links, ctype chains, parent): checked once, on two
    scratch models; False turns copying off, so a Pyomo whose Block keeps other records gets its
    own declarations instead of a damaged block."""

    def records(blk) -> tuple:
        order = [(obj.local_name, link) for obj, link in blk._decl_order]
        return dict(blk._decl), order, {ctype: list(chain) for ctype, chain in blk._ctypes.items()}

    try:
        ref, own = pe.ConcreteModel(), pe.ConcreteModel()
        param = lambda: pe.Param(mutable=True, initialize=0.0)  # noqa: E731
        for name, make in (("a", pe.Var), ("b", param), ("c", pe.Var)):
            ref.add_component(name, make())
            comp = make()
            comp.construct()
            _attach(own, name, comp)
        return records(ref) == records(own) and own.c.parent_block() is own and own.c.name == "c"
    except Exception:  # noqa: BLE001 -- any difference in Pyomo's internals means: do not copy
        return False


def _keys(index) -> tuple:
    return index.ordered_data()


def add_var(blk, name: str, index=None, nonneg: bool = False):
    """``blk.<name> = Var([index], domain=NonNegativeReals if nonneg else Reals, initialize=0.0)``;
    ``index`` a Set already on the model."""
    domain = pe.NonNegativeReals if nonneg else pe.Reals
    proto = _prototype(
        ("var", index is None, nonneg),
        lambda ix: (
            pe.Var(domain=domain, initialize=0.0)
            if index is None
            else pe.Var(ix, domain=domain, initialize=0.0)
        ),
    )
    if proto is None:
        args = () if index is None else (index,)
        blk.add_component(name, pe.Var(*args, domain=domain, initialize=0.0))
        return blk.component(name)
    obj = _copy(proto, index)
    stale = StaleFlagManager.get_flag(0)
    if index is None:
        data = {None: obj}
        _fill_var(obj, proto, weakref.ref(obj), None, stale)
    else:
        tmpl, ref, new = proto._data["k"], weakref.ref(obj), VarData.__new__
        data = {}
        for k in _keys(index):
            data[k] = d = new(VarData)
            _fill_var(d, tmpl, ref, k, stale)
    obj._data = data
    _attach(blk, name, obj)
    return obj


def _fill_var(d, tmpl, ref, key, stale) -> None:
    d._value, d._lb, d._ub, d._domain, d._fixed = tmpl._value, tmpl._lb, tmpl._ub, tmpl._domain, tmpl._fixed
    d._stale, d._component, d._index = stale, ref, key


#: expression classes ExpressionData.set_value accepted (it asks each object is_numeric_type())
_NUMERIC: set[type] = set(native_numeric_types)


def _set_expression(d, expr) -> None:
    if expr.__class__ in _NUMERIC:
        d._args_ = (expr,)
    else:
        ExpressionData.set_value(d, expr)  # Pyomo's check (a relational expression is refused)
        _NUMERIC.add(expr.__class__)


def _expression_component(blk, name: str, index):
    """A new Expression component copied from Pyomo's prototype (entries to be filled by the
    caller, then :func:`_attach`), or None when STAMPED is off or copying is not possible."""
    proto = _prototype(
        ("expression", index is None),
        lambda ix: pe.Expression(expr=0.0) if index is None else pe.Expression(ix, initialize={"k": 0.0}),
    )
    if proto is None:
        return None
    obj = _copy(proto, index)
    obj._rule = None
    return obj


def add_expression(blk, name: str, expr, index=None):
    """``blk.<name> = Expression(expr=expr)``, or with ``index`` (a Set on the model) and ``expr`` a
    mapping key -> expression, ``Expression(index, initialize=expr)``."""
    obj = _expression_component(blk, name, index)
    if obj is None:
        comp = pe.Expression(expr=expr) if index is None else pe.Expression(index, initialize=dict(expr))
        blk.add_component(name, comp)
        return comp
    ref = weakref.ref(obj)
    if index is None:
        obj._data = {None: obj}
        obj._component, obj._index = ref, None
        _set_expression(obj, expr)
    else:
        data, new = {}, ExpressionData.__new__
        for k in _keys(index):
            data[k] = d = new(ExpressionData)
            d._component, d._index = ref, k
            _set_expression(d, expr[k])
        obj._data = data
    _attach(blk, name, obj)
    return obj


# -- rows of a matrix, built when first read -----------------------------------------------------
_ARGS_SLOT = ExpressionData.__dict__["_args_"]  # ExpressionData's own storage of its expression


class MatrixRowData(ExpressionData):
    """An entry of an Expression component that is row r of a recorded matrix (``_source`` =
    (record, r), the record an object with ``expression(r)``, see
    :class:`contactmodel.mcp.compile.MatrixRecord`): its Pyomo expression is built on the first read
    of it, by anything (``expr``, ``args``, printing, writers, Pyomo's walkers, copying), and is
    then the very expression an eager build holds. Until then the compiler reads the row from the
    record's matrix. Setting a new expression (``set_value``, ``expr = ...``) makes it an ordinary
    entry: ``_source`` is cleared, and the compiler reads the new expression."""

    __slots__ = ("_source",)
    __autoslot_mappers__ = {"_source": AutoSlots.encode_as_none}  # a copy is an ordinary entry

    @property
    def _args_(self) -> tuple:
        try:
            return _ARGS_SLOT.__get__(self, MatrixRowData)
        except AttributeError:  # not built yet
            record, r = self._source
            args = (record.expression(r),)
            _ARGS_SLOT.__set__(self, args)
            return args

    @_args_.setter
    def _args_(self, args: tuple) -> None:
        _ARGS_SLOT.__set__(self, args)
        self._source = None

    @property
    def built(self) -> bool:
        """Whether the row's expression exists (was read, or set)."""
        try:
            _ARGS_SLOT.__get__(self, MatrixRowData)
        except AttributeError:
            return False
        return True

    def pending(self) -> tuple | None:
        """(record, r) while the row is not built, else None (then read its expression)."""
        return None if self.built else self._source


def add_matrix_rows(blk, name: str, index, record, rows: Mapping) -> object:
    """``blk.<name> = Expression(index, initialize={k: row rows[k] of record})`` (``index`` a Set on
    the model), each entry a :class:`MatrixRowData` whose expression ``record.expression(r)`` is
    built when first read; with STAMPED off (Pyomo's own declarations), built at once."""
    obj = _expression_component(blk, name, index)
    if obj is None:
        return add_expression(blk, name, {k: record.expression(r) for k, r in rows.items()}, index)
    ref, new, data = weakref.ref(obj), MatrixRowData.__new__, {}
    for k in _keys(index):
        data[k] = d = new(MatrixRowData)
        d._component, d._index, d._source = ref, k, (record, rows[k])
    obj._data = data
    _attach(blk, name, obj)
    return obj


def add_param(blk, name: str, value: float):
    """``blk.<name> = Param(initialize=value, mutable=True, within=Reals)`` (value a float)."""
    proto = _prototype(("param",), lambda ix: pe.Param(initialize=0.0, mutable=True, within=pe.Reals))
    if proto is None:
        blk.add_component(name, pe.Param(initialize=float(value), mutable=True, within=pe.Reals))
        return blk.component(name)
    obj = _copy(proto, None)
    obj._rule = None
    obj._data = {None: obj}
    obj._value, obj._component, obj._index = float(value), weakref.ref(obj), None
    _attach(blk, name, obj)
    return obj


def add_param_vector(blk, name: str, values) -> object:
    """``blk.<name> = Param(range(len(values)), mutable=True, initialize=dict(enumerate(values)))``;
    Pyomo declares the component and its index, the entries are filled here."""
    values = [float(v) for v in values]
    if not STAMPED:
        blk.add_component(
            name, pe.Param(range(len(values)), mutable=True, initialize=dict(enumerate(values)))
        )
        return blk.component(name)
    comp = pe.Param(range(len(values)), mutable=True)
    blk.add_component(name, comp)
    ref, new, data = weakref.ref(comp), ParamData.__new__, comp._data
    for k, v in enumerate(values):
        data[k] = d = new(ParamData)
        d._value, d._component, d._index = v, ref, k
    return comp


def add_block(blk, name: str, cls):
    """``blk.<name> = cls()`` for a scalar Block class ``cls`` (e.g. one made by
    ``declare_custom_block``), empty."""
    proto = _prototype(("block", cls), lambda ix: cls())
    if proto is None:
        blk.add_component(name, cls())
        return blk.component(name)
    obj = _copy(proto, None)
    obj.__dict__.update(_ctypes={}, _decl={}, _decl_order=[], _private_data=None, _data={None: obj})
    _set_slot(obj, "_active", True)
    _set_slot(obj, "_component", weakref.ref(obj))
    _set_slot(obj, "_index", None)
    _attach(blk, name, obj)
    return obj


def add_complementarity(blk, name: str, index, pairs):
    """``blk.<name> = Complementarity(index)`` with entry k = ``pairs[k]`` (a ``complements(...)``
    tuple) for every member k of ``index``, in its order: a Set on the model (its members), or a
    ``range`` (Pyomo declares the component and its index Set; ``pairs`` then a sequence)."""
    shared = isinstance(index, pe.Set)
    keys = _keys(index) if shared else index
    proto = _prototype(("complementarity",), lambda ix: Complementarity(ix)) if shared else None
    if proto is None:  # Pyomo declares the component; its entries are filled below when STAMPED
        obj = Complementarity(index)
        blk.add_component(name, obj)
        if not STAMPED:
            for k in keys:
                obj._setitem_when_not_present(k, pairs[k])
            return obj
        data = obj._data
    else:
        obj, data = _copy(proto, index), {}
    ref, new = weakref.ref(obj), ComplementarityData.__new__
    for k in keys:
        data[k] = d = new(ComplementarityData)
        pair = pairs[k]
        d.__dict__.update(_ctypes={}, _decl={}, _decl_order=[], _private_data=None, _args=(pair[0], pair[1]))
        _set_slot(d, "_active", True)
        _set_slot(d, "_component", ref)
        _set_slot(d, "_index", k)
    if proto is not None:
        obj._data = data
        _attach(blk, name, obj)
    return obj
