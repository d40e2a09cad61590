"""Formulation: Assembly + friction laws -> a Pyomo model with pyomo.mpec complementarity.

The model has one Block per contact, ``model.contact[name]``, built by that contact's
friction law, holding the forces (``c_n``, ``c_t``, ...), the law's own variables and pairs,
and the contact's relative accelerations ``accel[n|t|o|r]`` (rows of a matrix whose Pyomo
expressions are built when first read, see :data:`LAZY_ROWS`). Two forms (:class:`Form`), each a
:class:`FormModel` that writes those accelerations and reads its own variables back:

- ``Form.REDUCED``: accelerations eliminated, a = A c + b with ``model.b`` a mutable Param
  (Trinkle, Pang, Sudarsky and Lo, "On dynamic multi-rigid-body contact problems with Coulomb
  friction", 1997, (21)-(35); the pyramid model is exactly the LCP (32)-(35)).
- ``Form.SPARSE``: generalized accelerations ``model.nu_dot`` kept as free variables, each matched
  with its Newton-Euler row M nu_dot - G^T c - f = 0 (``model.f`` mutable); A is never formed.

:meth:`Problem.interpret` maps a solver's point x back to forces, accelerations and the motion of
the bodies and joints (:class:`PhysicalPoint`).

Only complementarity forms accepted by Pyomo's ``mpec.nl`` transformation are used:
``0 <= x _|_ expr >= 0`` and ``expr == 0 _|_ x free``.
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from contactmodel import validate
from contactmodel.assembly import (
    ContactAssembly,
    Motion,
    assemble,
    assemble_from_matrices,
)
from contactmodel.constants import FORMS, Form  # noqa: F401  (FORMS: re-exported)
from contactmodel.errors import DeclarationError, FormulationError, NoContactsWarning
from contactmodel.friction.base import (
    ContactContext,
    FrictionLaw,
)
from contactmodel.friction.rows import ContactRows
from contactmodel.layout import Layout
from contactmodel.mcp.compiled import LAST_X, CompiledMCP
from contactmodel.mcp.direct import (
    DirectMCP,
    compile_direct,
    contact_rows,
    force_matrix,
    one_block_size,
)
from contactmodel.memory import building
from contactmodel.sparse_product import csr_times
from contactmodel.system import System
from contactmodel.update import HeldMatrix, adopt_param_edits
from contactmodel.update import reassemble as reassemble_problem
from contactmodel.update import update as update_problem

if TYPE_CHECKING:  # annotations only: Pyomo is imported when a model is first read
    from contactmodel._pyomo import pe


@dataclass
class PhysicalPoint:
    """The physical values at a solver's point x of a contact :class:`Problem`.

    ``forces`` (m,) contact forces c on body_a and ``accelerations`` (m,) relative contact
    accelerations a, both in assembly row order (n, t, o[, r] per contact, contact frames; N and
    m/s^2, N m and rad/s^2 for r); ``motion`` the bodies' and joints' accelerations and efforts;
    ``checks`` the physical residuals (absolute): ``normal_complementarity`` = max |min(c_n, a_n)|
    and, in the sparse form, ``newton_euler`` = max |M nu_dot - G^T c - f - efforts| with nu_dot
    the model's own variables.
    """

    forces: np.ndarray
    accelerations: np.ndarray
    motion: Motion
    checks: dict[str, float]
    rows: dict[str, list[int]] = field(repr=False)

    def contact(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(force, acceleration) of one contact, each (n, t, o[, r])."""
        rows = self.rows[name]
        return self.forces[rows], self.accelerations[rows]


@dataclass
class Problem:
    """A formulated contact problem: assembly numbers, laws, and the Pyomo model.

    ``variables`` lists every variable the laws declared (forces and multipliers);
    ``T`` (m x len(variables)) maps their values to the contact force vector c (assembly rows).
    Each law states its contact's rows (:meth:`~contactmodel.friction.base.FrictionLaw.rows`);
    the model is built from them when first read (``model``, ``variables``, :meth:`block`), and
    until then :meth:`compile` makes the MCP from the same rows as arrays
    (:mod:`contactmodel.mcp.direct`), the built model's MCP.
    """

    assembly: ContactAssembly
    form: Form
    laws: dict[str, FrictionLaw]
    contexts: dict[str, ContactContext]
    T: sp.csr_matrix
    _model: pe.ConcreteModel | None = field(default=None, repr=False)
    _variables: list | None = field(default=None, repr=False)
    #: each contact's rows, while the model is not built (see :mod:`contactmodel.mcp.direct`), and
    #: the first of each contact's force variables among T's columns
    _direct: dict[str, ContactRows] | None = field(default=None, repr=False)
    _starts: list[int] | None = field(default=None, repr=False)
    _compiled: CompiledMCP | None = field(default=None, repr=False)
    _layout: Layout | None = field(default=None, repr=False)
    _params_seen: tuple | None = field(default=None, repr=False)  # (assembly, Param values)
    _model_assembly: ContactAssembly | None = field(default=None, repr=False)  # the model's rows'
    #: what :meth:`reassemble` keeps of the compiled MCP's matrix
    _held_matrix: HeldMatrix | None = field(default=None, repr=False)
    _lazy_rows: bool = field(default=True, repr=False)  # LAZY_ROWS when formulated: the build's

    def __post_init__(self) -> None:
        if self._model is not None:
            self._model_assembly = self.assembly
        self._adopt_param_edits()  # the Params as built match the assembly: later edits are noticed

    def _adopt_param_edits(self) -> None:
        self._params_seen = adopt_param_edits(self, self._params_seen)

    @property
    def layout(self) -> Layout:
        """The contacts as index arrays (:class:`~contactmodel.layout.Layout`) for the checks
        and the modes; made on first use, again only when the contacts' rows, the sliding
        contacts, the laws or the contexts were replaced."""
        layout = self._layout
        if layout is None or not layout.current(self):
            layout = self._layout = Layout.of(self, layout)
        return layout

    @property
    def model(self) -> pe.ConcreteModel:
        """The Pyomo model (built on first read when the problem was formulated without it)."""
        if self._model is None:
            self._build()
        return self._model

    @property
    def variables(self) -> list:
        """The laws' force variables y of the model (c = T y), in T's column order."""
        if self._model is None:
            self._build()
        return self._variables

    @property
    def rows_statement(self) -> dict[str, ContactRows] | None:
        """Each contact's :class:`~contactmodel.friction.rows.ContactRows` while the model is not
        built (the MCP is then made from them); None once it is (its Blocks hold the rows)."""
        return self._direct

    @property
    def built(self) -> bool:
        """Whether the Pyomo model exists (see the class docstring)."""
        return self._model is not None

    def _build(self) -> None:
        """Build the model from the current assembly, laws and contexts (what the laws' rows or
        their own builders declare); a point loaded before is written into it. An MCP made from
        the arrays stays this problem's MCP until the model's structure is edited (a component
        added, removed or (de)activated: see :class:`~contactmodel.mcp.compile.Structure`)."""
        from contactmodel.model import build_model  # Pyomo: imported when a model is first read

        with building():
            statement = self._direct or contact_rows(self.laws, self.contexts)
            model, variables = build_model(self.assembly, statement, self.T, self.form, self._lazy_rows)
        self._model, self._variables, self._model_assembly = model, variables, self.assembly
        self._direct = self._starts = None
        self._adopt_param_edits()
        if self._compiled is not None:
            self._compiled.adopt_model(model)

    @property
    def system(self) -> System:
        return self.assembly.system

    @property
    def contact_names(self) -> list[str]:
        return list(self.laws)

    def block(self, contact: str) -> pe.Block:
        return self.model.contact[contact]

    def reformulate(self, friction=None, form: Form | str | None = None) -> Problem:
        """The same assembly with other laws and/or form (no re-assembly); by default the
        current laws and form are kept."""
        if friction is None:
            friction = dict(self.laws)
        return formulate(self.assembly, friction=friction, form=form or self.form)

    def compile(self, refresh: bool = False) -> CompiledMCP:
        """The numeric MCP of the model. Cached: recompiled when ``refresh`` or when components
        were added, removed or (de)activated since (noticed without walking the model, see
        :class:`~contactmodel.mcp.compile.Structure`); otherwise only mutable Params such as
        ``model.b`` are re-read, and edits of them by hand taken into the assembly the checks use.
        Before the model is built (see the class docstring), the MCP is made from the arrays and
        re-reads b and mu from the problem's assembly and laws."""
        compiled = self._compiled
        if self._model is None:
            if compiled is None or refresh:
                with building():  # as formulate: many small objects (names, pairs) that all live on
                    direct = compile_direct(self, self._direct, self._starts, self.T)
                if direct is not None:
                    self._compiled = direct
                    return direct
                self._build()  # a variable matched with no row: the compiler names it
                compiled = None
            else:
                compiled.update()
                return compiled
        if compiled is None or refresh or compiled.structure.changed():
            # the last answer of the MCP made from the arrays is a point of the model's MCP too
            last = compiled.derived.get(LAST_X) if isinstance(compiled, DirectMCP) else None
            from contactmodel.mcp.compile import compile_model  # a model is built: Pyomo is loaded

            with building():  # see formulate
                self._compiled = compile_model(self.model)
            if last is not None and last.shape == (self._compiled.mcp.n,):
                self._compiled.derived[LAST_X] = last
            self._adopt_param_edits()
        else:
            compiled.update()
            self._adopt_param_edits()
        return self._compiled

    def update(self, b=None, f=None, mu=None) -> None:
        """New numbers for the same problem, without rebuilding or recompiling the model.

        ``b`` (m,): a = A c + b at zero contact force (assembly rows; m/s^2, rad/s^2 for r).
        ``f`` (nq,): the generalized forces without contact forces (N, N m; problems built from a
        System only); b follows from it. Give b or f, not both. ``mu``: the friction coefficient
        of ``CoulombCone(mu, form="soc")`` contacts that roll (one number, one per contact, or a
        mapping contact name -> mu); other laws hold mu in their rows' coefficients and are
        refused (use :meth:`reformulate`). The model's mutable Params, the problem's assembly
        and its laws all take the new numbers, so the next solve, its checks and modes use them
        (see :mod:`contactmodel.update`).
        """
        update_problem(self, b=b, f=f, mu=mu)

    def reassemble(
        self, assembly: ContactAssembly, contexts: dict[str, ContactContext] | None = None
    ) -> bool:
        """Give the problem ``assembly`` in place of its own, without rebuilding or recompiling:
        the same contacts in the same order with the same rows (the same laws), other numbers,
        A as well as b (the time stepper's next step with an unchanged contact set).

        ``contexts``: the contacts' new contexts (same contacts; each must give its law the same
        rows, e.g. every contact rolling). Reduced form only. The new b goes where
        :meth:`update` writes it; a new A (differing from the compiled MCP's by more than 1e-12
        relative) goes into the compiled MCP's matrix (:class:`~contactmodel.update.AccelerationMap`;
        the Pyomo model, when built, keeps the rows of the A it was built with). Returns False,
        changing nothing, when the compiled MCP cannot take the new A (a law whose rows are not
        affine in its contact's accelerations, or the sparse form): formulate the problem anew.
        """
        compiled = self._compiled
        if compiled is None or (compiled.structure is not None and compiled.structure.changed()):
            compiled = self.compile()
        held = self._held_matrix
        if held is None or held.compiled is not compiled:  # a new compilation: made with A of ...
            direct = isinstance(compiled, DirectMCP)
            source = self._model_assembly if self.built and not direct else self.assembly  # ... the model's
            held = HeldMatrix(compiled, source.A_sparse)
        held = reassemble_problem(self, assembly, contexts, held)
        if held is None:
            return False
        self._held_matrix = held
        return True

    # -- numbers <-> model ---------------------------------------------------------------
    def interpret(self, x: np.ndarray, compiled: CompiledMCP | None = None) -> PhysicalPoint:
        """The physical values at a point x (n,) of the compiled MCP (default: this problem's last
        compilation), in its variable order; the point is also written into the model."""
        if compiled is None:
            compiled = self._compiled if self._compiled is not None else self.compile()
        x = np.asarray(x, dtype=float)
        compiled.load(x)
        layout = self.layout
        c = self.forces_at(x, compiled)
        if self.assembly.quasistatic:  # velocities are the point's own unknowns, not a function of c
            a, motion = self.assembly.response_at(c, _FORM_MODELS[self.form].generalized(self, x, compiled))
        else:
            a, motion = self.assembly.response(c)
        normal = layout.normal
        checks = {
            "normal_complementarity": float(np.max(np.abs(np.minimum(c[normal], a[normal])), initial=0.0))
        }
        checks.update(_FORM_MODELS[self.form].checks(self, c, motion, x, compiled))
        return PhysicalPoint(c, a, motion, checks, layout.rows_by_name)

    def forces_at(self, x: np.ndarray, compiled: CompiledMCP | None = None) -> np.ndarray:
        """(m,) contact forces c (assembly rows) at a point x (n,) of the compiled MCP (default:
        this problem's last compilation): :meth:`interpret`'s forces, without its checks and
        without writing x into the model."""
        if compiled is None:
            compiled = self._compiled if self._compiled is not None else self.compile()
        return csr_times(self.T, _force_values(self, compiled, np.asarray(x, dtype=float)))

    def law_residual(self, c: np.ndarray, a: np.ndarray) -> float:
        """max over contacts of each law's :meth:`~contactmodel.friction.base.FrictionLaw.law_residual`
        at forces ``c`` and accelerations ``a`` (m,) (assembly rows), absolute."""
        res = self.layout.law_residuals(np.asarray(c, dtype=float), np.asarray(a, dtype=float))
        return float(np.max(res, initial=0.0))

    def force_vector(self) -> np.ndarray:
        """(m,) contact forces c at the model's current variable values (before the model is
        built: at the point last loaded into the MCP made from the arrays, which the model's
        variables take when it is built; reading them does not build it)."""
        compiled = self._compiled
        if self._model is None and isinstance(compiled, DirectMCP):
            cols = compiled.derived.get("force_columns")
            if cols is not None and (cols.size == 0 or cols.min() >= 0):
                return self.T @ compiled.values()[cols]
        y = np.array([0.0 if v.value is None else v.value for v in self.variables])
        return self.T @ y

    def acceleration_vector(self, c: np.ndarray | None = None) -> np.ndarray:
        """(m,) relative accelerations a = A c + b for forces c (default: current values)."""
        c = self.force_vector() if c is None else np.asarray(c, dtype=float)
        return self.assembly.contact_accelerations(c)

    def load_forces(self, c, velocities=None) -> None:
        """Set every model variable from a physical point given by the contact forces.

        ``c``: (m,) vector in assembly row order, or a mapping contact name -> (n, t, o[, r]).
        Accelerations follow from the dynamics; each law lifts (c, a) to its own variables. A
        quasistatic problem's velocities are no function of the forces: ``velocities`` (nq,) gives
        them (default: the driven ones, the free ones 0).
        """
        c = self._as_vector(c)
        values, _ = self._lifted(c, velocities)
        blocks: dict[str, pe.Block] = {}
        for name, local, index, v in values:
            blk = blocks.get(name) or blocks.setdefault(name, self.block(name))
            blk.component(local)[index].set_value(v, skip_validation=True)
        _FORM_MODELS[self.form].load(self, c, velocities)

    def point_at(self, c) -> np.ndarray:
        """The point (n,) of this problem's compiled MCP, in its variable order, at the physical
        point given by the contact forces ``c`` (as :meth:`load_forces` takes them): each law lifts
        (c, a) to its own variables, the sparse form's nu_dot follows from the dynamics. Made from
        the rows without the model while it is not built; nothing is written."""
        compiled = self.compile()
        if not isinstance(compiled, DirectMCP) or self.built:
            self.load_forces(c)
            return compiled.values()
        c = self._as_vector(c)
        asm = self.assembly
        column = compiled.derived.get("key_columns")
        if column is None:
            column = compiled.derived["key_columns"] = {key: i for i, key in enumerate(compiled.keys)}
        x = np.zeros(compiled.mcp.n)
        values, nu = self._lifted(c)
        for name, local, index, v in values:
            i = column.get((name, local, index))
            if i is not None:
                x[i] = v
        if self.form == Form.SPARSE:
            nu_dot = asm.accelerations(c) if nu is None else nu
            for i in np.flatnonzero(asm.free):
                x[column[(None, "nu_dot", asm.coordinates[i])]] = nu_dot[i]
        return x

    def _lifted(self, c: np.ndarray, velocities=None) -> tuple[list[tuple], np.ndarray | None]:
        """(contact, variable, index or None, value) of every law's variables at the forces ``c``
        (m,) and the relative accelerations they give, each law's ``lift``; and, for a quasistatic
        problem, the velocities nu (nq,) those accelerations were read from (``velocities``,
        default the driven ones and 0), else None."""
        asm = self.assembly
        nu = None
        if asm.quasistatic:
            nu = asm.nu_dot_prescribed if velocities is None else np.asarray(velocities, dtype=float)
            a = asm.G @ nu
        else:
            a = asm.contact_accelerations(c)
        values = []
        for name, law in self.laws.items():
            rows = asm.indices(name)
            for local, val in law.lift(self.contexts[name], c[rows], a[rows]).items():
                if isinstance(val, float) or not isinstance(val, Mapping):  # float first: cheap
                    values.append((name, local, None, val))
                    continue
                for index, v in val.items():
                    values.append((name, local, index, v))
        return values, nu

    def _as_vector(self, c) -> np.ndarray:
        m = self.assembly.m
        if isinstance(c, Mapping):
            vec = np.zeros(m)
            for name, value in c.items():
                rows = self.assembly.contact_rows[name]
                value = np.asarray(value, dtype=float)
                for k, comp in enumerate(rows):
                    vec[rows[comp]] = value[k] if k < value.size else 0.0
            return vec
        vec = np.asarray(c, dtype=float).reshape(-1)
        if vec.shape != (m,):
            raise FormulationError(f"forces must have {m} entries (assembly rows), got {vec.shape}")
        return vec


def _force_values(problem: Problem, compiled: CompiledMCP, x: np.ndarray) -> np.ndarray:
    """The values of ``problem.variables`` at the MCP point x: read from x by column (recorded
    once per compilation); a variable that is no MCP column (fixed by the user) keeps its value
    in the model."""
    cols = compiled.derived.get("force_columns")
    if cols is None:
        position = {id(v): i for i, v in enumerate(compiled.variables)}
        cols = np.array([position.get(id(v), -1) for v in problem.variables], dtype=np.int64)
        compiled.derived["force_columns"] = cols
    y = x[cols] if cols.size else np.zeros(0)
    missing = np.flatnonzero(cols < 0)
    for k in missing:
        value = problem.variables[k].value
        y[k] = 0.0 if value is None else value
    return y


def _resolve_laws(assembly: ContactAssembly, friction) -> dict[str, FrictionLaw]:
    laws: dict[str, FrictionLaw] = {}
    overrides = friction if isinstance(friction, Mapping) else {}
    known = {c.name for c in assembly.system.contacts}
    for name in overrides:
        if name not in known:
            raise FormulationError(
                f"friction override for unknown contact '{name}' (contacts: {sorted(known)})"
            )
    for contact in assembly.system.contacts:
        law = overrides.get(contact.name)
        if law is None and friction is not None and not isinstance(friction, Mapping):
            law = friction
        if law is None:
            law = contact.friction
        if law is None:
            raise FormulationError(
                f"contact '{contact.name}' has no friction law: give friction= on add_contact or "
                "formulate(system, friction=cm.CoulombCone(mu))"
            )
        if not isinstance(law, FrictionLaw):
            raise FormulationError(
                f"contact '{contact.name}': friction must be a friction law such as cm.Pyramid(0.5) "
                f"(got {law!r})"
            )
        if law is not contact.friction:  # a declared law was checked by System.add_contact
            law.check_contact(contact)
        laws[contact.name] = law
    return laws


#: the contacts' accelerations ``accel[axis]`` are rows of the form's matrix built when first read
#: (:class:`~contactmodel._pyomo.MatrixRowData`; the compiler reads them from the matrix); False:
#: built at once, as LinearExpressions (the same model once read, and the same MCP; the tests
#: compare the two; see :func:`contactmodel.model.build_model`)
LAZY_ROWS = True


def formulate(system, friction=None, form: Form | str = Form.REDUCED) -> Problem:
    """Build the complementarity model of ``system`` (a System, or an assembly to reuse).

    ``friction``: None (each contact's own law), one law for every contact, or a mapping
    contact name -> law overriding some contacts. ``form``: a :class:`Form` or its name,
    ``"reduced"`` or ``"sparse"``.

    A System with bodies but no contacts is valid: its problem has no contact rows and its
    solution is the bodies' free motion under their wrenches (gravity included); formulate
    warns (``UserWarning``), since a forgotten ``add_contact`` looks the same. A System with
    neither bodies nor manipulators is a :class:`DeclarationError`.
    """
    if isinstance(system, System) and not system.contacts:
        if not system.bodies and not system.manipulators:
            raise DeclarationError(
                "formulate: the System is empty; declare bodies (add_body, add_manipulator) and "
                "contacts (add_contact) first"
            )
        warnings.warn(
            "formulate: the System has no contacts; the problem is the free motion of its bodies "
            "(declare contacts with System.add_contact; a model file's planes given in simulation() "
            "are contacts only when simulated)",
            NoContactsWarning,
            stacklevel=2,
        )
    # A model is a large graph of new objects; the cyclic garbage collector's passes over it cost
    # more than building it (1000 contacts: 0.5-0.7 s paused vs 1.0-2.0 s), so it is paused, and
    # the objects handed to its oldest generation afterwards (see ``building``).
    with building():
        return _formulate(system, friction, Form.parse(form))


def _formulate(system, friction, form: Form) -> Problem:
    """:func:`formulate` with the garbage collector paused: each law states its contact's rows, the
    force matrix T follows; the model is built from the same rows when first read (see
    :class:`Problem`)."""
    assembly = _assembly_of(system, form)
    laws = _resolve_laws(assembly, friction)
    contexts = _contexts(assembly)
    laws, statement = one_block_size(laws, contexts, contact_rows(laws, contexts))
    starts, T = force_matrix(assembly, statement)
    return Problem(assembly, form, laws, contexts, T, _direct=statement, _starts=starts, _lazy_rows=LAZY_ROWS)


def _contexts(assembly: ContactAssembly) -> dict[str, ContactContext]:
    """Each contact's :class:`ContactContext`: its relative velocity (its rows of ``assembly.v``;
    rows of one (nc, d) array when every contact has d rows)."""
    v, rolling_tol = assembly.v, assembly.system.rolling_tol
    contacts = assembly.system.contacts
    rows = [list(assembly.contact_rows[c.name].values()) for c in contacts]  # assembly.indices
    if rows and all(len(r) == len(rows[0]) for r in rows):
        table = v[np.array(rows, dtype=np.int64)]
        velocities = list(table)  # v[rows[j]] of each, as views
        still = (~np.any(table != 0.0, axis=1)).tolist()  # NaN is moving, -0.0 still
    else:
        velocities = [v[r] for r in rows]
        still = [not np.any(vel != 0.0) for vel in velocities]
    return {c.name: ContactContext(c, vel, rolling_tol, s) for c, vel, s in zip(contacts, velocities, still)}


def _assembly_of(system, form: Form) -> ContactAssembly:
    """The assembly of a System, or the given assembly when it offers ``form``."""
    if isinstance(system, ContactAssembly):
        if system.quasistatic and form is not Form.SPARSE:
            raise FormulationError(
                "a quasistatic problem has only the sparse form (without inertia the velocities "
                "cannot be eliminated): use form='sparse'"
            )
        if not system.has_dynamics and form is not Form.REDUCED:
            raise FormulationError(
                "a problem given by matrices A, b has only the reduced form; use form='reduced'"
            )
        return system
    if isinstance(system, System):
        return assemble(system)
    raise FormulationError(f"formulate needs a contactmodel.System (got {type(system).__name__})")


def formulate_from_matrices(
    A,
    b,
    mu=None,
    *,
    friction=None,
    sliding=None,
    velocities=None,
    torsion: bool = False,
    names=None,
    check_symmetric: bool = True,
) -> Problem:
    """The reduced contact model built from given A and b (e.g. a data set drawn for a fixed robot).

    Rows are (n, t, o[, r]) per contact. ``friction``: one law, a list (one per contact) or a
    mapping name -> law; default ``CoulombCone(mu)`` (``mu`` a scalar or one per contact).
    ``velocities`` (nc, 2 or 3) gives the sliding contacts' tangential velocities; ``sliding``
    (nc bools) may be given instead, meaning unit velocity along each contact's t axis.
    A must be symmetric, as A = G M^-1 G^T is, unless ``check_symmetric=False``: the model and
    the solvers do not need symmetry, so a general A (e.g. an FCLIB W) is then used as given.
    """
    from contactmodel.friction import CoulombCone

    torsion = validate.boolean(torsion, "torsion", error=FormulationError)
    d = 4 if torsion else 3
    nc = validate.real_array(b, "b", ndim=1, finite=False).shape[0] // d
    if velocities is None and sliding is not None:
        flags = _sliding_flags(sliding, nc, names)
        velocities = np.zeros((nc, d - 1))
        velocities[flags, 0] = 1.0
    assembly = assemble_from_matrices(
        A, b, velocities=velocities, torsion=torsion, names=names, check_symmetric=check_symmetric
    )
    contact_names = [c.name for c in assembly.system.contacts]
    if friction is None:
        if mu is None:
            raise FormulationError("give mu (scalar or per contact) or friction= for formulate_from_matrices")
        mus = validate.real_array(mu, "mu", error=FormulationError)
        if mus.ndim > 1 or (mus.ndim == 1 and mus.shape != (nc,)):
            raise FormulationError(
                f"mu must be a scalar or one coefficient per contact ({nc}), got shape {mus.shape}"
            )
        # one law object per distinct coefficient: the law residual and the modes work per law
        # object (one vectorized call for 400 contacts with one mu instead of 400 calls)
        cones = {float(m): CoulombCone(float(m)) for m in np.unique(mus)}
        each = np.broadcast_to(mus, (nc,)).tolist()  # Python floats, as float(m) of each entry
        friction = dict(zip(contact_names, map(cones.__getitem__, each)))
    elif isinstance(friction, (list, tuple)):
        if len(friction) != nc:
            raise FormulationError(f"friction list must have one law per contact ({nc})")
        friction = dict(zip(contact_names, friction))
    with building():  # see formulate; the model is built when first read, where the laws allow
        return _formulate(assembly, friction, Form.REDUCED)


def _sliding_flags(sliding, nc: int, names) -> np.ndarray:
    """(nc,) bools from ``sliding``: one bool per contact, or the names of the sliding contacts."""
    entries = [sliding] if isinstance(sliding, str) else list(np.asarray(sliding, dtype=object).reshape(-1))
    if entries and all(isinstance(e, str) for e in entries):
        known = list(names) if names is not None else [f"c{j}" for j in range(nc)]
        unknown = sorted(set(entries) - set(known))
        if unknown:
            raise FormulationError(f"sliding names unknown contact(s) {unknown}; the contacts are {known}")
        return np.array([name in entries for name in known])
    flags = np.array(
        [validate.boolean(e, "sliding entry", error=FormulationError) for e in entries], dtype=bool
    )
    if flags.shape != (nc,):
        raise FormulationError(f"sliding must have one flag per contact ({nc}), got {flags.shape}")
    return flags


class FormModel(ABC):
    """What a :class:`Form` does besides writing the accelerations (see
    :data:`contactmodel.model.ACCELERATIONS`): set its own model variables from forces, and check
    them."""

    @abstractmethod
    def load(self, problem: Problem, c: np.ndarray, velocities: np.ndarray | None = None) -> None:
        """Set the form's own model variables from contact forces c (m,) (and a quasistatic
        problem's ``velocities``, see :meth:`Problem.load_forces`)."""

    @abstractmethod
    def checks(
        self, problem: Problem, c: np.ndarray, motion: Motion, x: np.ndarray, compiled: CompiledMCP
    ) -> dict[str, float]:
        """The form's own residuals at the point x of ``compiled`` (absolute)."""


class ReducedForm(FormModel):
    """a = A c + b: no variables of its own."""

    def load(self, problem: Problem, c: np.ndarray, velocities: np.ndarray | None = None) -> None:
        """No variables of its own: accelerations are expressions of the forces."""

    def checks(self, problem, c, motion, x, compiled) -> dict[str, float]:
        return {}


class SparseForm(FormModel):
    """a = G_F nu_dot_F + bias, nu_dot free, matched with the Newton-Euler rows."""

    def load(self, problem: Problem, c: np.ndarray, velocities: np.ndarray | None = None) -> None:
        """nu_dot from the dynamics at forces c (a quasistatic problem's: ``velocities``, default
        the driven ones and 0)."""
        asm = problem.assembly
        if asm.quasistatic:
            nu_dot = asm.nu_dot_prescribed if velocities is None else np.asarray(velocities, dtype=float)
        else:
            nu_dot = asm.accelerations(c)
        for i, coord in enumerate(asm.coordinates):
            if asm.free[i]:
                problem.model.nu_dot[coord].set_value(float(nu_dot[i]))

    def checks(self, problem, c, motion, x, compiled) -> dict[str, float]:
        """``newton_euler``: the Newton-Euler residual at the point's own nu_dot (in a quasistatic
        problem the equilibrium -G^T c - f at the free coordinates)."""
        asm = problem.assembly
        nu_dot = self.generalized(problem, x, compiled)
        ne = asm.M @ nu_dot - asm.G.T @ c - asm.f - motion.efforts
        return {"newton_euler": float(np.max(np.abs(ne), initial=0.0))}

    def generalized(self, problem: Problem, x: np.ndarray, compiled: CompiledMCP) -> np.ndarray:
        """(nq,) the point's own nu_dot (velocities nu in a quasistatic problem): the MCP columns
        of the free coordinates, the prescribed values elsewhere (a nu_dot that is no MCP column,
        fixed by the user, at its value in the model)."""
        asm = problem.assembly
        cols = compiled.derived.get("nu_dot_columns")
        if cols is None:
            position = {id(v): i for i, v in enumerate(compiled.variables)}
            nd = problem.model.nu_dot
            cols = np.array([position.get(id(nd[asm.coordinates[i]]), -1) for i in np.flatnonzero(asm.free)])
            compiled.derived["nu_dot_columns"] = cols
        nu_dot = asm.nu_dot_prescribed.astype(float)
        free = np.flatnonzero(asm.free)
        nu_dot[free] = x[np.maximum(cols, 0)] if cols.size else 0.0
        for k in np.flatnonzero(cols < 0):
            nu_dot[free[k]] = problem.model.nu_dot[asm.coordinates[free[k]]].value
        return nu_dot


_FORM_MODELS: dict[Form, FormModel] = {Form.REDUCED: ReducedForm(), Form.SPARSE: SparseForm()}
