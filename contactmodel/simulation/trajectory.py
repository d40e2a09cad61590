"""The result of :func:`contactmodel.simulate`: states at every time, and per step the contact
impulses, modes and solver reports; save/load (npz) and a pandas DataFrame view."""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from contactmodel.errors import ContactModelError, DataFileError

if TYPE_CHECKING:
    from contactmodel.formulation import Problem
    from contactmodel.solution import Solution


@dataclass
class Trajectory:
    """States at ``times`` (N+1,) s and reports of the N steps between them.

    Per body (index order ``body_names``): ``positions`` (N+1, nb, 3) m of the centres of mass,
    ``quaternions`` (N+1, nb, 4) unit (w, x, y, z) body-to-world, ``velocities`` and
    ``angular_velocities`` (N+1, nb, 3) world frame. Per manipulator name: ``q``, ``qdot``
    (N+1, n). ``kinetic`` / ``potential`` (N+1,) J. Per step k (from times[k] to times[k+1]):
    ``status`` (str), ``residual``, ``iterations``, ``seconds`` (solver time), ``reused`` (the
    previous step's model was updated instead of rebuilt), ``timings`` (name -> (N,) s),
    ``fallback`` (str: '' when the fallback ladder did not run, else the rung whose answer was
    kept: another statement's label, the unloaded contacts' route, "from the LCP surrogate's
    answer" or newton's last-try options; 'as stated' when none was better; see
    :func:`contactmodel.solve.rescue`).
    ``step_tol``: the run's simulation tolerance (solved-inaccurate steps whose residual is at
    most this were accepted without the fallback; see ``contactmodel.simulation.stepper.STEP_TOL``).
    Per contact name: ``impulses[name]`` (N, d) N s in its (n, t, o[, r]) frame (NaN while
    inactive), ``contact_velocities[name]`` (N, d) post-step relative velocity G nu+ (m/s), ``gaps[name]``
    (N,) m, ``modes[name]`` (N,) str ('' while inactive), ``contact_points[name]`` (N, 3) m and
    ``contact_frames[name]`` (N, 3, 3) rows (n, t, o) in the world frame (NaN while inactive);
    ``laws[name]``: the contact's friction law when it was first active (not saved).
    """

    dt: float
    solver: str
    body_names: list[str]
    times: np.ndarray
    positions: np.ndarray
    quaternions: np.ndarray
    velocities: np.ndarray
    angular_velocities: np.ndarray
    kinetic: np.ndarray
    potential: np.ndarray
    #: (N+1,) J: potential energy given by the overlap projection in the step ending at each time
    #: (0 at t = 0; see ``contactmodel.simulation.stepper``): the energy balance of step k is
    #: energy[k+1] - energy[k] <= overlap_lift[k+1] plus the work of the controllers' wrenches
    overlap_lift: np.ndarray = field(default_factory=lambda: np.zeros(0))
    q: dict[str, np.ndarray] = field(default_factory=dict)
    qdot: dict[str, np.ndarray] = field(default_factory=dict)
    status: list[str] = field(default_factory=list)
    residual: np.ndarray = field(default_factory=lambda: np.zeros(0))
    iterations: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    seconds: np.ndarray = field(default_factory=lambda: np.zeros(0))
    reused: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    fallback: list[str] = field(default_factory=list)
    step_tol: float | None = None
    timings: dict[str, np.ndarray] = field(default_factory=dict)
    impulses: dict[str, np.ndarray] = field(default_factory=dict)
    contact_velocities: dict[str, np.ndarray] = field(default_factory=dict)
    gaps: dict[str, np.ndarray] = field(default_factory=dict)
    modes: dict[str, np.ndarray] = field(default_factory=dict)
    contact_points: dict[str, np.ndarray] = field(default_factory=dict)
    contact_frames: dict[str, np.ndarray] = field(default_factory=dict)
    laws: dict[str, Any] = field(default_factory=dict, repr=False)
    shapes: dict[str, Any] = field(default_factory=dict, repr=False)
    planes: list = field(default_factory=list, repr=False)
    failed_step: int | None = None
    failed_problem: Problem | None = field(default=None, repr=False)
    failed_solution: Solution | None = field(default=None, repr=False)
    #: (x, names): the last step's answer and its MCP's variable names, the warm start of the
    #: step after the last state (kept by a journal file for ``simulate(..., resume=...)``)
    warm_start: tuple[np.ndarray, list[str]] | None = field(default=None, repr=False)
    #: steps between two writes of a run written as it went (None: saved at the end)
    save_every: int | None = field(default=None, repr=False)
    _steps: list = field(default_factory=list, repr=False)
    _assemblies: list = field(default_factory=list, repr=False)
    _rows: list = field(default_factory=list, repr=False)

    # -- building (used by simulate) -----------------------------------------------------
    @classmethod
    def start(cls, sim, solver: str, record: bool = True) -> Trajectory:
        sysm = sim.system
        traj = cls(
            dt=sim.h,
            solver=solver,
            body_names=[b.name for b in sysm.bodies],
            times=np.zeros(0),
            positions=np.zeros((0, len(sysm.bodies), 3)),
            quaternions=np.zeros((0, len(sysm.bodies), 4)),
            velocities=np.zeros((0, len(sysm.bodies), 3)),
            angular_velocities=np.zeros((0, len(sysm.bodies), 3)),
            kinetic=np.zeros(0),
            potential=np.zeros(0),
            shapes={b.name: b.shape for b in sysm.bodies},
            planes=list(sim.planes),
            step_tol=sim.step_tol,
        )
        if record:
            traj.record_state(sim)
        return traj

    def record_state(self, sim) -> None:
        bodies = sim.system.bodies
        kin, pot = sim.energy()
        self._rows.append(
            (
                sim.t,
                [b.position.copy() for b in bodies],
                [q.copy() for q in sim.quaternions],
                [b.velocity.copy() for b in bodies],
                [b.angular_velocity.copy() for b in bodies],
                kin,
                pot,
                {a.name: (a.q.copy(), a.qdot.copy()) for a in sim.system.manipulators},
                sim.overlap_lift,
            )
        )

    def record_step(
        self, sim, step, contacts, gaps, p, solution, reused, keep, timings, stated=None, compliant=()
    ) -> None:
        """Record step k. ``stated``: the step's complementarity problem's Assembly when it is
        not ``step`` (a step with compliant contacts: the rigid contacts' step, None when there
        is none; see :func:`~contactmodel.simulation.compliant.compliant_step`); ``compliant``:
        the names of the step's compliant contacts."""
        rows = step.contact_rows
        v = step.G @ step.accelerations(p) if len(p) else np.zeros(0)
        modes = {}
        if solution is not None:
            modes = {c.name: c.mode for c in solution.contacts}
            for name, law in sim.step_laws.items():
                self.laws.setdefault(name, law)
        per = {
            c.name: (
                p[list(rows[c.name].values())],
                v[list(rows[c.name].values())],
                float(g),
                modes.get(c.name, ""),
                np.asarray(c.point, dtype=float),
                np.asarray(step.frames[c.name], dtype=float),
            )
            for c, g in zip(contacts, gaps)
        }
        report = (
            "solved" if solution is None else solution.status.value,
            0.0 if solution is None else float(solution.residual),
            0 if solution is None else int(solution.iterations),
            0.0 if solution is None else float(solution.seconds),
            bool(reused),
            timings,
            fallback_route(solution),
        )
        self._steps.append((per, report))
        if keep:
            stated = step if stated is None and not compliant else stated
            laws = {}
            if stated is not None and contacts:
                laws = {name: law for name, law in sim.step_laws.items() if name in stated.contact_rows}
            self._assemblies.append((stated, laws, list(compliant)))

    def fail(self, k: int, problem: Problem, solution: Solution) -> None:
        self.failed_step = k
        self.failed_problem = problem
        self.failed_solution = solution

    def finish(self) -> Trajectory:
        built = self.part(0, 0)
        for name in RECORDED:
            setattr(self, name, getattr(built, name))
        self._steps = []
        return self

    def part(self, first_state: int, first_step: int) -> Trajectory:
        """A new Trajectory of the states recorded from ``first_state`` on and the steps from
        ``first_step`` on (the run keeps recording; :meth:`joined` puts parts back together)."""
        rows, steps = self._rows[first_state:], self._steps[first_step:]
        nb = len(self.body_names)
        out = Trajectory(
            dt=self.dt,
            solver=self.solver,
            body_names=list(self.body_names),
            times=np.array([r[0] for r in rows]),
            positions=np.array([r[1] for r in rows]).reshape(len(rows), nb, 3),
            quaternions=np.array([r[2] for r in rows]).reshape(len(rows), nb, 4),
            velocities=np.array([r[3] for r in rows]).reshape(len(rows), nb, 3),
            angular_velocities=np.array([r[4] for r in rows]).reshape(len(rows), nb, 3),
            kinetic=np.array([r[5] for r in rows]),
            potential=np.array([r[6] for r in rows]),
            overlap_lift=np.array([r[8] for r in rows], dtype=float),
            shapes=self.shapes,
            planes=self.planes,
            step_tol=self.step_tol,
            failed_step=self.failed_step,
            save_every=self.save_every,
        )
        for name in rows[0][7] if rows else ():
            out.q[name] = np.array([r[7][name][0] for r in rows])
            out.qdot[name] = np.array([r[7][name][1] for r in rows])
        n = len(steps)
        out.status = [s[1][0] for s in steps]
        out.residual = np.array([s[1][1] for s in steps], dtype=float)
        out.iterations = np.array([s[1][2] for s in steps], dtype=int)
        out.seconds = np.array([s[1][3] for s in steps], dtype=float)
        out.reused = np.array([s[1][4] for s in steps], dtype=bool)
        out.fallback = [s[1][6] for s in steps]
        keys = steps[0][1][5].keys() if steps else ()
        out.timings = {key: np.array([s[1][5][key] for s in steps]) for key in keys}
        modes: dict[str, np.ndarray] = {}
        for k, (per, _) in enumerate(steps):
            for name, (imp, vel, gap, mode, point, frame) in per.items():
                if name not in out.impulses:
                    d = len(imp)
                    out.contact_points[name] = np.full((n, 3), np.nan)
                    out.contact_frames[name] = np.full((n, 3, 3), np.nan)
                    out.impulses[name] = np.full((n, d), np.nan)
                    out.contact_velocities[name] = np.full((n, d), np.nan)
                    out.gaps[name] = np.full(n, np.nan)
                    modes[name] = np.full(n, "", dtype=object)
                out.impulses[name][k] = imp
                out.contact_velocities[name][k] = vel
                out.gaps[name][k] = gap
                modes[name][k] = mode
                out.contact_points[name][k] = point
                out.contact_frames[name][k] = frame
        out.modes = {k: v.astype(str) for k, v in modes.items()}
        return out

    @classmethod
    def joined(cls, parts: list[Trajectory]) -> Trajectory:
        """One Trajectory of consecutive ``parts`` (each part's states follow the previous
        part's, its steps too; a contact absent from a part is inactive there)."""
        first, last = parts[0], parts[-1]
        cat = np.concatenate
        out = cls(
            dt=first.dt,
            solver=first.solver,
            body_names=list(first.body_names),
            times=cat([p.times for p in parts]),
            positions=cat([p.positions for p in parts]),
            quaternions=cat([p.quaternions for p in parts]),
            velocities=cat([p.velocities for p in parts]),
            angular_velocities=cat([p.angular_velocities for p in parts]),
            kinetic=cat([p.kinetic for p in parts]),
            potential=cat([p.potential for p in parts]),
            overlap_lift=cat([p.overlap_lift for p in parts]),
            status=[s for p in parts for s in p.status],
            residual=cat([p.residual for p in parts]),
            iterations=cat([p.iterations for p in parts]).astype(int),
            seconds=cat([p.seconds for p in parts]),
            reused=cat([p.reused for p in parts]).astype(bool),
            fallback=[f for p in parts for f in p.fallback],
            step_tol=first.step_tol,
            shapes=first.shapes,
            planes=first.planes,
            failed_step=last.failed_step,
            failed_problem=last.failed_problem,
            failed_solution=last.failed_solution,
            warm_start=last.warm_start,
            save_every=last.save_every,
        )
        for name in first.q:
            out.q[name] = cat([p.q[name] for p in parts if name in p.q])
            out.qdot[name] = cat([p.qdot[name] for p in parts if name in p.qdot])
        with_steps = [p for p in parts if len(p.status)]
        keys = with_steps[0].timings.keys() if with_steps else ()
        out.timings = {key: cat([p.timings[key] for p in with_steps]) for key in keys}
        n = len(out.status)
        offset = 0
        for p in parts:
            m = len(p.status)
            for name, imp in p.impulses.items():
                if name not in out.impulses:
                    d = imp.shape[1]
                    out.impulses[name] = np.full((n, d), np.nan)
                    out.contact_velocities[name] = np.full((n, d), np.nan)
                    out.gaps[name] = np.full(n, np.nan)
                    out.modes[name] = np.full(n, "", dtype=object)
                    out.contact_points[name] = np.full((n, 3), np.nan)
                    out.contact_frames[name] = np.full((n, 3, 3), np.nan)
                out.impulses[name][offset : offset + m] = imp
                if name in p.contact_points:
                    out.contact_points[name][offset : offset + m] = p.contact_points[name]
                    out.contact_frames[name][offset : offset + m] = p.contact_frames[name]
                out.contact_velocities[name][offset : offset + m] = p.contact_velocities[name]
                out.gaps[name][offset : offset + m] = p.gaps[name]
                out.modes[name][offset : offset + m] = p.modes[name]
            offset += m
        out.modes = {k: v.astype(str) for k, v in out.modes.items()}
        return out

    # -- views --------------------------------------------------------------------------
    @property
    def n_steps(self) -> int:
        return len(self.times) - 1

    @property
    def ok(self) -> bool:
        """True when every step was solved (the run reached t_end)."""
        return self.failed_step is None

    @property
    def energy(self) -> np.ndarray:
        """(N+1,) total mechanical energy, J."""
        return self.kinetic + self.potential

    def body(self, name: str) -> int:
        """Index of body ``name`` in the state arrays."""
        try:
            return self.body_names.index(name)
        except ValueError:
            raise ContactModelError(
                f"no body named '{name}' in this trajectory ({self.body_names})"
            ) from None

    def contact_forces(self, name: str) -> np.ndarray:
        """(N, d) mean contact forces over each step, impulse / dt (N)."""
        return self.impulses[name] / self.dt

    def step_model(self, k: int) -> Problem:
        """The complementarity Problem that step k solved (rebuilt from its kept Assembly; needs
        ``keep_steps=True``): solving it gives the step's impulses and post-step velocities.

        A step with compliant contacts (``simulate(..., contact=...)``) solved their forces by
        Newton's method (:mod:`contactmodel.simulation.compliant`), not by complementarity: its
        Problem holds the rigid contacts alone, with the compliant contacts' impulses of the step
        (``impulses``) as a fixed load in its generalized force ``M nu + h f + G_c^T p_c``, so its
        answer is the rigid contacts' impulses and the step's nu+ (to the rigid-compliant
        coupling tolerance, 1e-10 relative, when a body touches both kinds). A step whose
        contacts were all compliant stated no complementarity problem: a
        :class:`~contactmodel.errors.ContactModelError` says so."""
        from contactmodel.formulation import formulate

        if k == self.failed_step and self.failed_problem is not None:
            return self.failed_problem
        if not self._assemblies:
            raise ContactModelError("step models were not kept: run simulate(..., keep_steps=True)")
        if not 0 <= k < len(self._assemblies):
            raise ContactModelError(f"step must be in 0..{len(self._assemblies) - 1} (got {k})")
        step, laws, compliant = self._assemblies[k]
        if not laws and compliant:
            raise ContactModelError(
                f"step {k}'s active contacts were all compliant ({', '.join(compliant)}): their forces "
                "were solved by Newton's method (contactmodel.simulation.compliant), not as a "
                "complementarity problem; their impulses are trajectory.impulses"
            )
        if not laws:
            raise ContactModelError(f"step {k} had no active contact: there is no contact model")
        return formulate(step, friction=laws)

    def summary(self) -> str:
        """A short text table: steps, status counts, contacts, energy change, timings."""
        from collections import Counter

        counts = Counter(self.status)
        lines = [
            f"steps: {self.n_steps}  dt: {self.dt:g} s  t_end: {self.times[-1]:.6g} s  solver: {self.solver}",
            "status: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())),
        ]
        if self.failed_step is not None:
            lines.append(f"FAILED at step {self.failed_step}: the run stopped there")
        if self.n_steps:
            rise = float(np.max(np.diff(self.energy), initial=0.0))
            lines.append(
                f"energy: {self.energy[0]:.6g} J -> {self.energy[-1]:.6g} J  "
                f"(largest one-step rise {rise:.3g} J)"
            )
            retried = sum(bool(f) for f in self.fallback)
            lines.append(
                f"simulation tolerance (step_tol): {self.step_tol}  steps retried in other "
                f"statements: {retried}"
            )
            lines.append(
                f"max residual: {np.max(self.residual, initial=0):.3g}  iterations: mean "
                f"{np.mean(self.iterations):.3g}  models reused: {int(self.reused.sum())}/{self.n_steps}"
            )
            lines.append(
                "time per step (ms): "
                + "  ".join(f"{k} {1e3 * np.mean(v):.3g}" for k, v in self.timings.items())
            )
        lines.append("")
        lines.append(f"{'body':<16}{'final position (m)':<40}{'final speed (m/s)':>18}")
        for i, name in enumerate(self.body_names):
            pos = ", ".join(f"{x:.6g}" for x in self.positions[-1, i])
            lines.append(f"{name:<16}{'(' + pos + ')':<40}{np.linalg.norm(self.velocities[-1, i]):>18.6g}")
        return "\n".join(lines)

    # -- output -------------------------------------------------------------------------
    def save(self, path) -> Path:
        """Write the trajectory to ``path``: ``.h5`` / ``.hdf5`` an HDF5 file (needs h5py: extra
        ``fclib``), ``.npz`` (or no suffix, then ``.npz`` is added) a NumPy archive; arrays plus a
        JSON header. Missing folders are created; another suffix is a :class:`DataFileError`.
        Returns the path written. See :func:`load`."""
        path = _save_path(path)
        arrays, header = self._arrays()
        if path.suffix.lower() in HDF5_SUFFIXES:
            h5py = _h5py()
            with h5py.File(path, "w") as fh:
                for key, val in arrays.items():
                    fh.create_dataset(key, data=val, compression="gzip" if val.size > 64 else None)
                fh.attrs["header"] = json.dumps(header)
            return path
        arrays["header"] = np.array(json.dumps(header))
        with open(path, "wb") as fh:  # a file object: numpy appends no second ".npz" (e.g. to ".NPZ")
            np.savez_compressed(fh, **arrays)
        return path

    def _arrays(self) -> tuple[dict[str, np.ndarray], dict]:
        """The arrays and the JSON header that :meth:`save` writes."""
        arrays: dict[str, np.ndarray] = {
            "times": self.times,
            "positions": self.positions,
            "quaternions": self.quaternions,
            "velocities": self.velocities,
            "angular_velocities": self.angular_velocities,
            "kinetic": self.kinetic,
            "potential": self.potential,
            "overlap_lift": self.overlap_lift,
            "residual": self.residual,
            "iterations": self.iterations,
            "seconds": self.seconds,
            "reused": self.reused,
        }
        contacts = list(self.impulses)
        for i, name in enumerate(contacts):
            arrays[f"impulse_{i}"] = self.impulses[name]
            arrays[f"cvel_{i}"] = self.contact_velocities[name]
            arrays[f"gap_{i}"] = self.gaps[name]
            if name in self.contact_points:
                arrays[f"point_{i}"] = self.contact_points[name]
                arrays[f"frame_{i}"] = self.contact_frames[name]
        arms = list(self.q)
        for i, name in enumerate(arms):
            arrays[f"q_{i}"] = self.q[name]
            arrays[f"qdot_{i}"] = self.qdot[name]
        for key, val in self.timings.items():
            arrays[f"timing_{key}"] = val
        header = {
            "dt": self.dt,
            "solver": self.solver,
            "body_names": self.body_names,
            "status": self.status,
            "fallback": self.fallback,
            "step_tol": self.step_tol,
            "contacts": contacts,
            "modes": {name: self.modes[name].tolist() for name in contacts},
            "arms": arms,
            "timings": list(self.timings),
            "failed_step": self.failed_step,
        }
        return arrays, header

    def columns(self) -> dict[str, np.ndarray]:
        """One column per quantity, one row per time: t, per body x y z qw qx qy qz vx vy vz
        wx wy wz, per manipulator q_i qdot_i, kinetic, potential; per contact the impulse of the
        step that starts at that time (``<contact>.p_n`` ..., NaN when inactive) and its mode."""
        cols: dict[str, np.ndarray] = {"t": self.times}
        groups = (
            (self.positions, ("x", "y", "z")),
            (self.quaternions, ("qw", "qx", "qy", "qz")),
            (self.velocities, ("vx", "vy", "vz")),
            (self.angular_velocities, ("wx", "wy", "wz")),
        )
        for i, name in enumerate(self.body_names):
            for arr, labels in groups:
                for j, label in enumerate(labels):
                    cols[f"{name}.{label}"] = arr[:, i, j]
        for name in self.q:
            for j in range(self.q[name].shape[1]):
                cols[f"{name}.q{j}"] = self.q[name][:, j]
                cols[f"{name}.qdot{j}"] = self.qdot[name][:, j]
        cols["kinetic"] = self.kinetic
        cols["potential"] = self.potential
        n = len(self.times)
        for name, imp in self.impulses.items():
            for j, comp in enumerate("ntor"[: imp.shape[1]]):
                col = np.full(n, np.nan)
                col[: len(imp)] = imp[:, j]
                cols[f"{name}.p_{comp}"] = col
            modes = np.full(n, "", dtype=object)
            modes[: len(imp)] = self.modes[name]
            cols[f"{name}.mode"] = modes
        return cols

    def to_dataframe(self):
        """:meth:`columns` as a pandas DataFrame (needs pandas: extra ``sim``)."""
        try:
            import pandas as pd
        except ImportError:
            raise ContactModelError(
                "to_dataframe needs pandas: pip install 'contactmodel[sim]' (or pandas)"
            ) from None
        return pd.DataFrame(self.columns())

    def to_html(self, path, fps: float = 20, speed: float = 1.0) -> Path:
        """Write an interactive 3D replay (bodies, contacts, forces, a time slider, play / pause)
        as one self-contained HTML page that works offline; needs plotly (extra ``viz``). See
        :func:`contactmodel.simulation.replay.to_html`."""
        from contactmodel.simulation.replay import to_html

        return to_html(self, path, fps=fps, speed=speed)

    def to_csv(self, path) -> Path:
        """Write :meth:`columns` as a CSV file with a header row (no pandas needed)."""
        import csv

        cols = self.columns()
        path = Path(path)
        with path.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(list(cols))
            for k in range(len(self.times)):
                writer.writerow([_cell(col[k]) for col in cols.values()])
        return path


def fallback_route(solution: Solution | None) -> str:
    """What the fallback did for a step's answer: '' when it did not run, else the statement
    whose answer was kept ('as stated' when no other one was better)."""
    report = None if solution is None else solution.extras.get("fallback")
    if report is None:
        return ""
    return report["solved_by"] or "as stated"


def _cell(value) -> str:
    if isinstance(value, str):
        return value
    return "" if not np.isfinite(value) else repr(float(value))


HDF5_SUFFIXES = (".h5", ".hdf5")
#: the fields of a Trajectory that :meth:`Trajectory.finish` fills from what the run recorded
RECORDED = (
    "times",
    "positions",
    "quaternions",
    "velocities",
    "angular_velocities",
    "kinetic",
    "potential",
    "overlap_lift",
    "q",
    "qdot",
    "status",
    "residual",
    "iterations",
    "seconds",
    "reused",
    "fallback",
    "timings",
    "impulses",
    "contact_velocities",
    "gaps",
    "modes",
    "contact_points",
    "contact_frames",
)


def _h5py():
    try:
        import h5py
    except ImportError:
        raise ContactModelError(
            "HDF5 trajectories need h5py: pip install 'contactmodel[fclib]' (or h5py), or save to .npz"
        ) from None
    return h5py


def _save_path(path) -> Path:
    """The file :meth:`Trajectory.save` writes for ``path``: its folder created, ``.npz`` added
    to a name without a suffix; a suffix of another format is a :class:`DataFileError`."""
    path = Path(path)
    if path.suffix == "":
        path = path.with_name(path.name + ".npz")
    elif path.suffix.lower() not in (".npz", *HDF5_SUFFIXES):
        raise DataFileError(
            f"cannot save a trajectory as '{path}': the suffix {path.suffix!r} names no format this "
            "writes; use .npz (NumPy) or .h5 / .hdf5 (HDF5)"
        )
    if path.is_dir():
        raise DataFileError(f"cannot save a trajectory as '{path}': it is a folder; give a file name")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def load(path) -> Trajectory:
    """Read a trajectory written by :meth:`Trajectory.save` (``.npz``, or ``.h5`` / ``.hdf5``;
    states, impulses, modes, reports; not the step models or shapes). A file that is missing,
    damaged or of another kind is a :class:`DataFileError` naming it."""
    path = Path(path)
    if not path.is_file():
        what = "is a folder" if path.is_dir() else "does not exist"
        raise DataFileError(f"trajectory file '{path}' {what}")
    try:
        return _load(path)
    except ContactModelError:
        raise
    except (OSError, EOFError, ValueError, KeyError, TypeError, IndexError, zipfile.BadZipFile) as exc:
        # numpy and h5py on a text, random or truncated file, a JSON header that is not JSON, an
        # archive missing an array the header names
        kind = "HDF5" if path.suffix.lower() in HDF5_SUFFIXES else "NumPy .npz"
        raise DataFileError(
            f"'{path}' cannot be read as a trajectory ({type(exc).__name__}: {str(exc)[:200]}); it is not "
            f"a {kind} file written by Trajectory.save, or it is truncated"
        ) from None


def _load(path: Path) -> Trajectory:
    if path.suffix.lower() in HDF5_SUFFIXES:
        with _h5py().File(path, "r") as fh:
            if JOURNAL_PARTS in fh.attrs:
                return _load_journal(fh)
            if "header" not in fh.attrs:
                raise DataFileError(f"'{path}' is not a trajectory written by Trajectory.save")
            header = json.loads(fh.attrs["header"])
            data = {key: fh[key][()] for key in fh.keys()}
        return _from_arrays(header, data)
    if not zipfile.is_zipfile(path):  # np.load would try to unpickle it and say "allow_pickle"
        raise DataFileError(
            f"'{path}' is not a NumPy .npz archive (a trajectory written by Trajectory.save); "
            "it is another kind of file or truncated"
        )
    with np.load(path, allow_pickle=False) as npz:
        if "header" not in npz:
            raise DataFileError(f"'{path}' is not a trajectory written by Trajectory.save")
        header = json.loads(str(npz["header"]))
        return _from_arrays(header, {key: npz[key] for key in npz.files})


def _from_arrays(header: dict, data: dict) -> Trajectory:
    """A Trajectory from :meth:`Trajectory._arrays`' header and arrays."""
    traj = Trajectory(
        dt=header["dt"],
        solver=header["solver"],
        body_names=header["body_names"],
        times=data["times"],
        positions=data["positions"],
        quaternions=data["quaternions"],
        velocities=data["velocities"],
        angular_velocities=data["angular_velocities"],
        kinetic=data["kinetic"],
        potential=data["potential"],
        overlap_lift=data["overlap_lift"] if "overlap_lift" in data else np.zeros(len(data["times"])),
        status=header["status"],
        residual=data["residual"],
        iterations=data["iterations"],
        seconds=data["seconds"],
        reused=data["reused"],
        fallback=header.get("fallback", [""] * len(header["status"])),
        step_tol=header.get("step_tol"),
        failed_step=header["failed_step"],
    )
    for i, name in enumerate(header["contacts"]):
        traj.impulses[name] = data[f"impulse_{i}"]
        traj.contact_velocities[name] = data[f"cvel_{i}"]
        traj.gaps[name] = data[f"gap_{i}"]
        traj.modes[name] = np.array(header["modes"][name], dtype=str)
        if f"point_{i}" in data:
            traj.contact_points[name] = data[f"point_{i}"]
            traj.contact_frames[name] = data[f"frame_{i}"]
    for i, name in enumerate(header["arms"]):
        traj.q[name] = data[f"q_{i}"]
        traj.qdot[name] = data[f"qdot_{i}"]
    for key in header["timings"]:
        traj.timings[key] = data[f"timing_{key}"]
    if "warm_x" in data:
        traj.warm_start = (np.asarray(data["warm_x"], dtype=float), list(header["warm_names"]))
    traj.save_every = header.get("save_every")
    return traj


# -- a run written as it goes (simulate(..., out=..., save_every=...)) ---------------------
#: the HDF5 attribute counting a journal file's complete parts
JOURNAL_PARTS = "journal_parts"
#: an HDF5 journal's attribute naming its parts in order, when a part is not named ``part{n:06d}``
#: (the group a killed run left half-written under that name could not be deleted)
JOURNAL_NAMES = "journal_names"


def _load_journal(fh) -> Trajectory:
    """The Trajectory of an HDF5 journal: its complete parts, joined (a part written when the
    run was killed is not counted, so it is ignored)."""
    parts = []
    names = fh.attrs.get(JOURNAL_NAMES)
    for n in range(int(fh.attrs[JOURNAL_PARTS])):
        group = fh[f"part{n:06d}" if names is None else str(names[n])]
        header = json.loads(group["header"][()])
        parts.append(_from_arrays(header, {key: group[key][()] for key in group.keys() if key != "header"}))
    if not parts:
        raise ContactModelError(f"'{fh.filename}' holds no saved state yet: nothing to load")
    return Trajectory.joined(parts)


class Journal:
    """Writes a run to ``path`` while it goes, so that a killed run leaves every step up to the
    last :meth:`flush`, with the warm start that the next step needs (``simulate(..., resume=)``).

    ``.h5`` / ``.hdf5``: each flush appends one part (a group of the steps since the last one)
    and then counts it in the file's ``journal_parts`` attribute; a part being written when the
    run is killed is not counted. ``.npz``: each flush writes the whole run so far to a
    temporary file in the same folder and renames it over ``path`` (``os.replace``, atomic), so
    the file is always a complete trajectory; its cost grows with the run (use HDF5 for long
    runs). ``prefix``: the run resumed (already in ``path`` when ``path`` is the file it came
    from, else written first).
    """

    def __init__(self, path, prefix: Trajectory | None = None, appending: bool = False) -> None:
        self.path = Path(path)
        if not self.path.parent.is_dir():
            raise ContactModelError(f"cannot write '{self.path}': folder '{self.path.parent}' does not exist")
        self.hdf5 = self.path.suffix.lower() in HDF5_SUFFIXES
        if not self.hdf5 and self.path.suffix.lower() != ".npz":
            raise ContactModelError(f"a run is written to .h5, .hdf5 or .npz files (got '{self.path}')")
        self.prefix = prefix
        self.states = 0
        self.steps = 0
        if self.hdf5 and not appending:
            with _h5py().File(self.path, "w") as fh:
                fh.attrs[JOURNAL_PARTS] = 0
            if prefix is not None:
                self._append(prefix)

    def flush(self, traj: Trajectory, warm_start: tuple[np.ndarray, list[str]] | None) -> None:
        """Write what ``traj`` recorded since the last flush; ``warm_start`` as in
        :attr:`Trajectory.warm_start` (the simulator's last answer)."""
        if len(traj._rows) == self.states and len(traj._steps) == self.steps and traj.failed_step is None:
            return
        if self.hdf5:
            part = traj.part(self.states, self.steps)
            part.warm_start = warm_start
            self._append(part)
        else:
            whole = traj.part(0, 0)
            whole.warm_start = warm_start
            if self.prefix is not None:
                whole = Trajectory.joined([self.prefix, whole])
            self._replace(whole)
        self.states, self.steps = len(traj._rows), len(traj._steps)

    def _append(self, part: Trajectory) -> None:
        arrays, header = _with_warm_start(part)
        with self._open() as fh:
            n = int(fh.attrs[JOURNAL_PARTS])
            names = fh.attrs.get(JOURNAL_NAMES)
            name = _free_part_name(fh, f"part{n:06d}")
            group = fh.create_group(name)
            for key, val in arrays.items():
                group.create_dataset(key, data=val)
            group.create_dataset("header", data=json.dumps(header))
            fh.flush()
            if names is not None or name != f"part{n:06d}":
                known = [f"part{k:06d}" for k in range(n)] if names is None else [str(v) for v in names[:n]]
                fh.attrs[JOURNAL_NAMES] = [*known, name]
            fh.attrs[JOURNAL_PARTS] = n + 1

    def _open(self, attempts: int = 50):
        """The file opened to append; a reader holding HDF5's file lock is waited for (0.1 s
        at a time, 5 s at most) rather than ending the run."""
        import time

        h5py = _h5py()
        for _ in range(attempts - 1):
            try:
                return h5py.File(self.path, "a")
            except OSError:
                time.sleep(0.1)
        return h5py.File(self.path, "a")

    def _replace(self, whole: Trajectory) -> None:
        import os
        import tempfile

        arrays, header = _with_warm_start(whole)
        arrays["header"] = np.array(json.dumps(header))
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, **arrays)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def _free_part_name(fh, name: str) -> str:
    """``name``, after deleting the group a run killed while writing it left there; when HDF5
    cannot delete that half-written group, the first free ``name-k``."""
    try:
        if name not in fh:
            return name
        del fh[name]
        return name
    except (KeyError, OSError, RuntimeError):
        k = 1
        while f"{name}-{k}" in fh:
            k += 1
        return f"{name}-{k}"


def _with_warm_start(traj: Trajectory) -> tuple[dict[str, np.ndarray], dict]:
    arrays, header = traj._arrays()
    if traj.warm_start is not None:
        x, names = traj.warm_start
        arrays["warm_x"] = np.asarray(x, dtype=float)
        header["warm_names"] = list(names)
    header["save_every"] = traj.save_every
    return arrays, header
