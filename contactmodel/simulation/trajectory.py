"""The result of :func:`contactmodel.simulate`: states at every time, and per step the contact
impulses, modes and solver reports; save/load (npz) and a pandas DataFrame view."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from contactmodel.errors import ContactModelError

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
    ``fallback`` (str: '' when the step's other statements were not tried, else the one whose
    answer was kept, 'as stated' when none was better; see :mod:`contactmodel.fallback`).
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
    _steps: list = field(default_factory=list, repr=False)
    _assemblies: list = field(default_factory=list, repr=False)
    _rows: list = field(default_factory=list, repr=False)

    # -- building (used by simulate) -----------------------------------------------------
    @classmethod
    def start(cls, sim, solver: str) -> Trajectory:
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
            )
        )

    def record_step(self, sim, step, contacts, gaps, p, solution, reused, keep, timings) -> None:
        rows = step.contact_rows
        v = step.G @ step.accelerations(p) if len(p) else np.zeros(0)
        modes = {}
        if solution is not None:
            modes = {c.name: c.mode for c in solution.contacts}
            for name, law in (sim.problem.laws if sim.problem is not None else {}).items():
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
            laws = dict(sim.problem.laws) if sim.problem is not None and contacts else {}
            self._assemblies.append((step, laws))

    def fail(self, k: int, problem: Problem, solution: Solution) -> None:
        self.failed_step = k
        self.failed_problem = problem
        self.failed_solution = solution

    def finish(self) -> Trajectory:
        rows = self._rows
        self.times = np.array([r[0] for r in rows])
        self.positions = np.array([r[1] for r in rows]).reshape(len(rows), -1, 3)
        self.quaternions = np.array([r[2] for r in rows]).reshape(len(rows), -1, 4)
        self.velocities = np.array([r[3] for r in rows]).reshape(len(rows), -1, 3)
        self.angular_velocities = np.array([r[4] for r in rows]).reshape(len(rows), -1, 3)
        self.kinetic = np.array([r[5] for r in rows])
        self.potential = np.array([r[6] for r in rows])
        for name in rows[0][7]:
            self.q[name] = np.array([r[7][name][0] for r in rows])
            self.qdot[name] = np.array([r[7][name][1] for r in rows])
        n = len(self._steps)
        self.status = [s[1][0] for s in self._steps]
        self.residual = np.array([s[1][1] for s in self._steps], dtype=float)
        self.iterations = np.array([s[1][2] for s in self._steps], dtype=int)
        self.seconds = np.array([s[1][3] for s in self._steps], dtype=float)
        self.reused = np.array([s[1][4] for s in self._steps], dtype=bool)
        self.fallback = [s[1][6] for s in self._steps]
        keys = self._steps[0][1][5].keys() if self._steps else ()
        self.timings = {key: np.array([s[1][5][key] for s in self._steps]) for key in keys}
        for k, (per, _) in enumerate(self._steps):
            for name, (imp, vel, gap, mode, point, frame) in per.items():
                if name not in self.impulses:
                    d = len(imp)
                    self.contact_points[name] = np.full((n, 3), np.nan)
                    self.contact_frames[name] = np.full((n, 3, 3), np.nan)
                    self.impulses[name] = np.full((n, d), np.nan)
                    self.contact_velocities[name] = np.full((n, d), np.nan)
                    self.gaps[name] = np.full(n, np.nan)
                    self.modes[name] = np.full(n, "", dtype=object)
                self.impulses[name][k] = imp
                self.contact_velocities[name][k] = vel
                self.gaps[name][k] = gap
                self.modes[name][k] = mode
                self.contact_points[name][k] = point
                self.contact_frames[name][k] = frame
        self.modes = {k: v.astype(str) for k, v in self.modes.items()}
        self._steps = []
        return self

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
        """The Problem of step k (rebuilt from its kept Assembly; needs ``keep_steps=True``)."""
        from contactmodel.formulation import formulate

        if k == self.failed_step and self.failed_problem is not None:
            return self.failed_problem
        if not self._assemblies:
            raise ContactModelError("step models were not kept: run simulate(..., keep_steps=True)")
        if not 0 <= k < len(self._assemblies):
            raise ContactModelError(f"step must be in 0..{len(self._assemblies) - 1} (got {k})")
        step, laws = self._assemblies[k]
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
        ``fclib``), otherwise an ``.npz`` file; arrays plus a JSON header. See :func:`load`."""
        path = Path(path)
        arrays, header = self._arrays()
        if path.suffix.lower() in HDF5_SUFFIXES:
            h5py = _h5py()
            with h5py.File(path, "w") as fh:
                for key, val in arrays.items():
                    fh.create_dataset(key, data=val, compression="gzip" if val.size > 64 else None)
                fh.attrs["header"] = json.dumps(header)
            return path
        arrays["header"] = np.array(json.dumps(header))
        np.savez_compressed(path, **arrays)
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


def _h5py():
    try:
        import h5py
    except ImportError:
        raise ContactModelError(
            "HDF5 trajectories need h5py: pip install 'contactmodel[fclib]' (or h5py), or save to .npz"
        ) from None
    return h5py


def load(path) -> Trajectory:
    """Read a trajectory written by :meth:`Trajectory.save` (``.npz``, or ``.h5`` / ``.hdf5``;
    states, impulses, modes, reports; not the step models or shapes)."""
    path = Path(path)
    if not path.exists():
        raise ContactModelError(f"trajectory file '{path}' does not exist")
    if path.suffix.lower() in HDF5_SUFFIXES:
        with _h5py().File(path, "r") as fh:
            if "header" not in fh.attrs:
                raise ContactModelError(f"'{path}' is not a trajectory written by Trajectory.save")
            header = json.loads(fh.attrs["header"])
            data = {key: fh[key][()] for key in fh.keys()}
        return _from_arrays(header, data)
    with np.load(path, allow_pickle=False) as npz:
        if "header" not in npz:
            raise ContactModelError(f"'{path}' is not a trajectory written by Trajectory.save")
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
    return traj
