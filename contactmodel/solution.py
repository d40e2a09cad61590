"""The Solution of a solve: status, point, residuals, and per-contact/body/joint results."""

from __future__ import annotations

import math
import textwrap
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from contactmodel.errors import UnknownNameError
from contactmodel.solvers.base import Status


@dataclass
class ContactResult:
    """One contact's outcome in its (n, t, o[, r]) frame: force on body_a, relative acceleration."""

    name: str
    mode: str
    force: list[float]
    acceleration: list[float]
    direction: list[float] | None = None  # unit sliding direction in (t, o) when sliding
    label: str | None = None  # e.g. "slide +t-o" (pyramid quadrant), "slide d3" (polygon direction)
    degenerate: bool = False  # decided by a pair with both sides zero (e.g. roll with c_n = 0)
    decided_by: list[str] = field(default_factory=list)  # the strictly complementary pairs
    #: quasistatic problems: the relative velocity (n, t, o[, r]; m/s, rad/s for r), the rows'
    #: unknown in place of the acceleration (which is then 0); None in a dynamic problem
    velocity: list[float] | None = None


@dataclass
class BodyResult:
    name: str
    linear_acceleration: list[float]  # world frame, m/s^2, of the centre of mass
    angular_acceleration: list[float]  # world frame, rad/s^2
    #: quasistatic problems (None in a dynamic one): the body's twist, world frame, of the centre
    #: of mass (m/s) and angular (rad/s); the accelerations are then 0 (inertia neglected)
    linear_velocity: list[float] | None = None
    angular_velocity: list[float] | None = None
    #: quasistatic problems, a driven body: the wrench (force N, torque N m about the centre of
    #: mass, world frame) its driver applies to keep it on its prescribed twist; None otherwise
    driving_wrench: list[float] | None = None


@dataclass
class JointResult:
    name: str
    acceleration: float
    effort: float  # the declared effort, or the computed one where it was unknown
    velocity: float | None = None  # quasistatic problems: the joint rate (rad/s or m/s)


@dataclass
class Solution:
    """Result of :func:`contactmodel.solve`.

    Contact, body and joint results are filled only when the status is solved or
    solved-inaccurate (``x`` keeps the last iterate otherwise).
    ``residual`` is the dispatcher's own natural-map residual ||x - mid(lb, x - F(x), ub)||_inf
    divided by ``residual_scale``, the same for every solver; ``residual_scale`` is the scale of
    the problem's own data, ||F(0)||_inf (||q||_inf of an LCP M x + q; for a contact problem the
    largest load term: external forces and free accelerations), or 1 when F(0) = 0, so the status
    does not change when the data is scaled (:mod:`contactmodel.mcp.scale`); ``checks`` holds the
    physical checks (normal complementarity, Newton-Euler) for contact problems. ``cone_form`` is
    the form in which the contacts of laws with two statements (``CoulombCone``,
    ``AnisotropicCone``, ``EllipticTorsion``, ``Ellipsoid``) were solved (``"soc"``, ``"mncp"``,
    ``"soc+mncp"``; None without such contacts), see :mod:`contactmodel.friction.cone`.
    """

    status: Status
    solver: str
    residual: float
    iterations: int
    seconds: float
    x: np.ndarray | None = None
    message: str = ""
    contacts: list[ContactResult] = field(default_factory=list)
    bodies: list[BodyResult] = field(default_factory=list)
    joints: list[JointResult] = field(default_factory=list)
    checks: dict[str, float] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)
    cone_form: str | None = None  # form of the cone-law contacts that ran: soc, mncp, soc+mncp
    residual_scale: float = 1.0  # ||F(0)||_inf, or 1 when F(0) = 0: what ``residual`` is relative to

    @property
    def ok(self) -> bool:
        return self.status in (Status.SOLVED, Status.SOLVED_INACCURATE)

    def contact(self, name: str) -> ContactResult:
        for c in self.contacts:
            if c.name == name:
                return c
        raise UnknownNameError(
            f"no contact named {name!r} in this solution (contacts: {[c.name for c in self.contacts]}); "
            "results are filled only when solution.ok"
        )

    def to_json(self) -> dict:
        """The command line's JSON object (plain Python types)."""
        return {
            "status": self.status.value,
            "solver": self.solver,
            "residual": _num(self.residual),
            "residual_scale": _num(self.residual_scale),
            "iterations": int(self.iterations),
            "seconds": float(self.seconds),
            "message": self.message,
            "contacts": [_clean(asdict(c)) for c in self.contacts],
            "bodies": [_clean(asdict(b)) for b in self.bodies],
            "joints": [_clean(asdict(j)) for j in self.joints],
            "checks": {k: _num(v) for k, v in self.checks.items()},
            "cone_form": self.cone_form,
        }

    def table(self, verbose: bool = False, problem=None) -> str:
        """A readable text report: the status line (what the status was decided on), the solver line,
        the solver's message, then aligned contact, body and joint tables with units (SI) in the
        headers. Values within the answer's accuracy of zero print as 0 (see :func:`_zero_below`).
        ``verbose`` adds the other checks, the timings and the solver's counters.

        ``problem``: the solved :class:`~contactmodel.Problem`. Given, the table notes when the
        contact forces are not unique (statically indeterminate, e.g. a box resting on four
        corners): the loaded contacts' Jacobian rows are rank deficient, singular values at most
        1e-9 times the largest counting as zero, so many splits of the forces give the same
        motion (:func:`contactmodel.analysis.indeterminate.table_note`)."""
        lines = [self.status_line(), self.solver_line()]
        if self.message:
            lines.append(f"{self.solver}'s message (its own residual scale): {self.message}")
        if self.contacts:
            width = max(len(c.force) for c in self.contacts)
            axes = "ntor"[:width]
            header = ["contact", "mode"]
            header += [f"f_{k} [{'N m' if k == 'r' else 'N'}]" for k in axes]
            if self.quasistatic:
                header += [f"v_{k} [{'rad/s' if k == 'r' else 'm/s'}]" for k in axes]
            else:
                header += [f"a_{k} [{'rad/s^2' if k == 'r' else 'm/s^2'}]" for k in axes]
            forces = self._zeroed([c.force for c in self.contacts])
            accels = self._zeroed([c.velocity or c.acceleration for c in self.contacts])
            rows = [
                [c.name, c.label or c.mode, *_cells(f, width), *_cells(a, width)]
                for c, f, a in zip(self.contacts, forces, accels)
            ]
            lines += ["", *_columns(header, rows, left=2)]
            if problem is not None and self.ok:
                from contactmodel.analysis.indeterminate import table_note

                note = table_note(problem, self)
                lines += ["", *textwrap.wrap(note, 100)] if note else []
        if self.bodies and self.quasistatic:
            header = ["body", *(f"v_{k} [m/s]" for k in "xyz"), *(f"w_{k} [rad/s]" for k in "xyz")]
            header += [*(f"F_{k} [N]" for k in "xyz"), *(f"M_{k} [N m]" for k in "xyz")]
            linear = self._zeroed([b.linear_velocity for b in self.bodies])
            angular = self._zeroed([b.angular_velocity for b in self.bodies])
            driven = [b.driving_wrench for b in self.bodies if b.driving_wrench is not None]
            wrench = iter(self._zeroed(driven) if driven else [])
            rows = [
                [b.name, *_cells(v, 3), *_cells(w, 3), *_cells(next(wrench) if b.driving_wrench else [], 6)]
                for b, v, w in zip(self.bodies, linear, angular)
            ]
            lines += ["", *_columns(header, rows, left=1)]
        elif self.bodies:
            header = ["body", *(f"a_{k} [m/s^2]" for k in "xyz"), *(f"alpha_{k} [rad/s^2]" for k in "xyz")]
            linear = self._zeroed([b.linear_acceleration for b in self.bodies])
            angular = self._zeroed([b.angular_acceleration for b in self.bodies])
            rows = [[b.name, *_cells(v, 3), *_cells(w, 3)] for b, v, w in zip(self.bodies, linear, angular)]
            lines += ["", *_columns(header, rows, left=1)]
        if self.joints:
            if self.quasistatic:
                header = ["joint", "velocity [m/s or rad/s]", "effort [N or N m]"]
                accel = self._zeroed([[j.velocity] for j in self.joints])
            else:
                header = ["joint", "acceleration [m/s^2 or rad/s^2]", "effort [N or N m]"]
                accel = self._zeroed([[j.acceleration] for j in self.joints])
            effort = self._zeroed([[j.effort] for j in self.joints])
            rows = [[j.name, *_cells(a, 1), *_cells(e, 1)] for j, a, e in zip(self.joints, accel, effort)]
            lines += ["", *_columns(header, rows, left=1)]
        if self.quasistatic and self.ok:
            lines += ["", QUASISTATIC_NOTE]
        if verbose:
            lines += ["", *self._details()]
        return "\n".join(lines)

    @property
    def quasistatic(self) -> bool:
        """Whether this answers a quasistatic problem (velocities, not accelerations)."""
        return bool(self.extras.get("quasistatic", False))

    def status_line(self) -> str:
        """The status and the numbers it was decided on: the natural-map residual of the MCP relative
        to ``residual_scale`` (printed) and, for contact problems, the friction laws' residual on
        the same scale."""
        parts = [
            f"status: {self.status.value}",
            f"residual (MCP, relative to ||F(0)||_inf = {_sci(self.residual_scale)}): {_sci(self.residual)}",
        ]
        law = self.checks.get("law_residual")
        if law is not None:
            parts.append(f"law residual (relative): {_sci(law)}")
        return "   ".join(parts)

    def solver_line(self) -> str:
        line = f"solver: {self.solver}   iterations: {self.iterations}   time: {self.seconds * 1e3:.2f} ms"
        return line if self.cone_form is None else f"{line}   cone form: {self.cone_form}"

    def _details(self) -> list[str]:
        """verbose: the other checks, the timings and the solver's scalar counters."""
        out = [f"check {k}: {_sci(v)}" for k, v in self.checks.items() if k != "law_residual"]
        out += [f"time {k}: {v * 1e3:.2f} ms" for k, v in self.timings.items()]
        counters = {k: v for k, v in self.extras.items() if isinstance(v, (bool, int, float, str))}
        if "residual" in counters:
            out.append(f"{self.solver}'s own residual (its scale): {_sci(counters.pop('residual'))}")
        out += [
            f"{self.solver} {k}: {v:.6g}" if isinstance(v, float) else f"{self.solver} {k}: {v}"
            for k, v in counters.items()
        ]
        return out

    def _zeroed(self, vectors: list[list[float]]) -> list[list[float]]:
        """``vectors`` with the entries below the answer's accuracy set to 0 (one column group)."""
        limit = _zero_below(self.residual, vectors, self.residual_scale)
        return [[0.0 if abs(v) <= limit else float(v) for v in vec] for vec in vectors]


#: printed under a quasistatic answer: such problems often have several solutions
QUASISTATIC_NOTE = (
    "quasistatic: this is one solution; quasistatic problems are often not unique "
    "(cm.decide(problem) decides, cm.all_solutions(problem) lists others)"
)


def _zero_below(residual: float, vectors: list[list[float]], scale: float = 1.0) -> float:
    """The magnitude under which a printed value is indistinguishable from 0 at this accuracy:
    10 max(residual, 1e-12) max(scale, the largest magnitude in the group). ``residual`` is
    relative to ``scale``, the problem's :attr:`Solution.residual_scale`, so the limit scales with
    the data and with the group's largest entry; the floor 1e-12 stands for the rounding of the
    assembly and the solve."""
    largest = max((abs(v) for vec in vectors for v in vec if math.isfinite(v)), default=0.0)
    accuracy = residual if math.isfinite(residual) else 0.0
    return 10.0 * max(accuracy, 1e-12) * max(scale, largest)


def _cells(values: list[float], width: int) -> list[str]:
    """``width`` cells: the values (6 significant digits, 0 for zero) padded with blanks."""
    return [_fmt(v) for v in values] + [""] * (width - len(values))


def _fmt(v: float) -> str:
    return "0" if v == 0 else f"{v:.6g}"


def _sci(v: float | None) -> str:
    return "n/a" if v is None or not math.isfinite(v) else f"{v:.1e}"


def _columns(header: list[str], rows: list[list[str]], left: int) -> list[str]:
    """Aligned text columns: the first ``left`` left-aligned (names), the rest right-aligned (numbers)."""
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]
    out = []
    for row in [header, *rows]:
        cells = [f"{c:<{w}}" if k < left else f"{c:>{w}}" for k, (c, w) in enumerate(zip(row, widths))]
        out.append("   ".join(cells).rstrip())
    return out


def _num(v):
    return None if v is None or not np.isfinite(v) else float(v)


def _clean(d: dict) -> dict:
    return {k: v for k, v in d.items() if v is not None}
