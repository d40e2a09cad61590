"""Run a peer script of ``--tools`` as it runs itself, and also print the solution it found.

Usage (each with the interpreter its peer needs; numpy and the peer only, no contactmodel):
    /usr/bin/python3       benchmarks/peer_dump.py siconos  INSTANCE.npz SOLVER [SOLVER ...]
    /opt/peers/bin/python  benchmarks/peer_dump.py gamspy   INSTANCE.npz
    /opt/peers/bin/python  benchmarks/peer_dump.py lemkelcp INSTANCE.npz
    [--tools DIR] [--tol T]      (DIR default: $CONTACTMODEL_PEERS)

The peer scripts print status, iterations, seconds and residual but not the solution. This wrapper
imports the script as a module and calls it unchanged (Siconos: its ``solve_one``; GAMSPy and
lemkelcp: its ``main``), intercepting only the call that produces the solution (the Siconos
driver, GAMSPy's ``Variable``, lemkelcp's ``lemketableau``) to keep a copy of it. Output: the
script's JSON line(s) with ``"z"`` added (LCP: z; fc3d: the contact forces r), null when the peer
returned none. A peer that cannot run here (not installed; GAMS refusing an expired or missing
license) prints one line with ``"status": "unavailable"`` and the reason, and the exit status is 0,
so callers skip it instead of counting a failure.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _paths  # noqa: E402


def _load(tools: Path, name: str):
    spec = importlib.util.spec_from_file_location(f"_peer_{name}", tools / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Proxy:
    """A module stand-in: every attribute from ``module`` except the ones set on the proxy."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name: str):
        return getattr(self._module, name)


def siconos(tools: Path, instance: str, solvers: list[str], tol: float | None) -> list[dict]:
    peer = _load(tools, "peer_siconos")
    sn = _Proxy(peer.sn)
    kept: dict[str, np.ndarray] = {}

    def keep(driver):
        def call(prob, x, y, so):
            info = driver(prob, x, y, so)
            kept["z"] = np.array(x, dtype=float)
            return info

        return call

    sn.linearComplementarity_driver = keep(peer.sn.linearComplementarity_driver)
    sn.fc3d_driver = keep(peer.sn.fc3d_driver)
    peer.sn = sn
    data = dict(np.load(instance))
    args = argparse.Namespace(tol=tol, maxiter=None)
    out = []
    for name in solvers:
        kept.clear()
        stdout = os.dup(1)  # solve_one sends fd 1 to stderr (Siconos prints there); restore it after
        try:
            row = peer.solve_one(data, name, args)
        except Exception as exc:  # noqa: BLE001 - report like the script does
            row = {"solver": name, "status": "fail", "reason": f"exception: {type(exc).__name__}: {exc}"}
        finally:
            sys.stdout.flush()
            os.dup2(stdout, 1)
            os.close(stdout)
        z = kept.get("z")
        row["z"] = None if z is None or not np.all(np.isfinite(z)) else z.tolist()
        out.append(row)
    return out


def _run_main(peer, argv: list[str]) -> dict:
    saved = sys.argv
    sys.argv = argv
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            peer.main()
    finally:
        sys.argv = saved
    lines = [ln for ln in buffer.getvalue().splitlines() if ln.startswith("{")]
    return json.loads(lines[-1]) if lines else {"status": "fail", "reason": "no output"}


def _unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the peer cannot run here (missing package, GAMS license refused)."""
    return isinstance(exc, ImportError) or "licens" in str(exc).lower()


def gamspy(tools: Path, instance: str, tol: float | None) -> list[dict]:
    try:
        return _gamspy(tools, instance, tol)
    except Exception as exc:
        if not _unavailable(exc):
            raise
        reason = f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1] if str(exc).strip() else exc!r}"
        return [{"solver": "path", "status": "unavailable", "reason": reason, "z": None}]


def _gamspy(tools: Path, instance: str, tol: float | None) -> list[dict]:
    peer = _load(tools, "peer_gamspy_path")
    gp = _Proxy(peer.gp)
    made = []
    real_variable = peer.gp.Variable

    def variable(*args, **kwargs):
        made.append(real_variable(*args, **kwargs))
        return made[-1]

    gp.Variable = variable
    peer.gp = gp
    row = _run_main(peer, ["peer_gamspy_path.py", instance] + (["--tol", str(tol)] if tol else []))
    n = int(np.load(instance)["q"].size)
    z = None
    records = made[0].records if made else None
    if records is not None and row.get("status") == "ok":
        z = np.zeros(n)
        z[[int(s[1:]) for s in records["i"]]] = records["level"].to_numpy()  # as the script reads it
    row["z"] = None if z is None else z.tolist()
    return [row]


def lemkelcp(tools: Path, instance: str) -> list[dict]:
    peer = _load(tools, "peer_lemkelcp")
    kept: dict[str, object] = {}

    class Tableau(peer.lemketableau):
        def lemkeAlgorithm(self):  # noqa: N802 - the package's name
            result = super().lemkeAlgorithm()
            kept["z"] = result[0]
            return result

    peer.lemketableau = Tableau
    row = _run_main(peer, ["peer_lemkelcp.py", instance])
    z = kept.get("z")
    row["z"] = None if z is None else np.asarray(z, dtype=float).tolist()
    return [row]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("peer", choices=["siconos", "gamspy", "lemkelcp"])
    ap.add_argument("instance")
    ap.add_argument("solvers", nargs="*", help="Siconos solver names (e.g. lemke, nsn_ac)")
    ap.add_argument("--tools", type=Path, default=_paths.default("--tools"), help=_paths.WHAT["--tools"])
    ap.add_argument("--tol", type=float, default=None)
    args = ap.parse_args()
    tools = _paths.require(args.tools, "--tools")
    if args.peer == "siconos":
        rows = siconos(tools, args.instance, args.solvers or ["lemke"], args.tol)
    elif args.peer == "gamspy":
        rows = gamspy(tools, args.instance, args.tol)
    else:
        rows = lemkelcp(tools, args.instance)
    for row in rows:
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
