"""The Solution of a solve: status, point, residuals, and per-contact/body/joint results."""

from __future__ import annotations

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


@dataclass
class BodyResult:
    name: str
    linear_acceleration: list[float]  # world frame, m/s^2, of the centre of mass
    angular_acceleration: list[float]  # world frame, rad/s^2


@dataclass
class JointResult:
    name: str
    acceleration: float
    effort: float  # the declared effort, or the computed one where it was unknown


@dataclass
class Solution:
    """Result of :func:`contactmodel.solve`.

    Contact, body and joint results are filled only when the status is solved or
    solved-inaccurate (``x`` keeps the last iterate otherwise).
    ``residual`` is the dispatcher's own natural-map residual ||x - mid(lb, x - F(x), ub)||_inf
    divided by max(1, ||F(x0 = 0)||_inf), the same for every solver; ``checks`` holds the
    physical checks (normal complementarity, Newton-Euler) for contact problems.
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
            "iterations": int(self.iterations),
            "seconds": float(self.seconds),
            "message": self.message,
            "contacts": [_clean(asdict(c)) for c in self.contacts],
            "bodies": [_clean(asdict(b)) for b in self.bodies],
            "joints": [_clean(asdict(j)) for j in self.joints],
            "checks": {k: _num(v) for k, v in self.checks.items()},
        }

    def table(self) -> str:
        """A readable text table of the contact, body and joint results."""
        law = self.checks.get("law_residual")
        law_text = f"   law residual: {law:.3e}" if law is not None else ""
        lines = [
            f"status: {self.status.value}   solver: {self.solver}   residual: {self.residual:.3e}"
            f"{law_text}   iterations: {self.iterations}   time: {self.seconds * 1e3:.2f} ms"
        ]
        if self.message:
            lines.append(f"message: {self.message}")
        if self.contacts:
            lines.append("")
            lines += _columns(
                ("contact", "mode", "force (n, t, o[, r])", "acceleration (n, t, o[, r])"),
                [(c.name, c.mode, _vec(c.force), _vec(c.acceleration)) for c in self.contacts],
            )
        if self.bodies:
            lines.append("")
            lines += _columns(
                ("body", "linear acceleration", "angular acceleration"),
                [(b.name, _vec(b.linear_acceleration), _vec(b.angular_acceleration)) for b in self.bodies],
            )
        if self.joints:
            lines.append("")
            lines.append(f"{'joint':<20}{'acceleration':>14}{'effort':>14}")
            for j in self.joints:
                lines.append(f"{j.name:<20}{j.acceleration:>14.6g}{j.effort:>14.6g}")
        return "\n".join(lines)


def _columns(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[k]) for r in [header, *rows]) + 3 for k in range(len(header))]
    return ["".join(f"{cell:<{w}}" for cell, w in zip(row, widths)).rstrip() for row in [header, *rows]]


def _vec(values) -> str:
    return "(" + ", ".join(f"{v:.6g}" for v in values) + ")"


def _num(v):
    return None if v is None or not np.isfinite(v) else float(v)


def _clean(d: dict) -> dict:
    return {k: v for k, v in d.items() if v is not None}
