"""Pyomo is imported only when a Pyomo object is read: declaring, formulating and solving a
contact problem with any law, in either form, with the solvers that take it, never loads it; reading
``problem.model`` does."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import contactmodel as cm

    s = cm.System(gravity=(0, 0, -9.81))
    box = s.add_body("box", mass=1.0, inertia=cm.inertia.box(1.0, (0.2, 0.2, 0.2)),
                     position=(0, 0, 0.1), velocity=(0.5, 0, 0))
    for i, (x, y) in enumerate([(0.1, 0.1), (-0.1, 0.1), (-0.1, -0.1), (0.1, -0.1)]):
        s.add_contact(box, s.ground, point=(x, y, 0), normal=(0, 0, 1), name=f"c{i}", torsion=True)
    laws = [cm.CoulombCone(0.5), cm.CoulombCone(0.5, slack="norm"), cm.Pyramid(0.5),
            cm.Ellipsoid(0.5, 1, 1, 0.1), cm.Polygonal(0.5, 6)]
    for law in laws:
        for form, solvers in (("reduced", ("newton", "lemke", "ipopt")), ("sparse", ("newton",))):
            problem = cm.formulate(s, friction=law, form=form)
            for solver in solvers:
                assert cm.solve(problem, solver=solver).ok, (law, form, solver)
    print("pyomo" in sys.modules)
    problem.model
    print("pyomo" in sys.modules)
    # Pyomo's modelling layer only: not its solver plugins, nor the SciPy parts it would load
    print(sorted({"pyomo.environ", "scipy.stats"} & set(sys.modules)))
    """
)


def test_formulate_and_solve_do_not_import_pyomo() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=300, check=True
    )
    assert out.stdout.split() == ["False", "True", "[]"], out.stdout + out.stderr
