"""
Two SCARA robots grasp a cube between their fingertips (Andreani et al. (2002) §4)
==================================================================================

The model ships with the package as ``contactmodel.models.scara_grasp``, so the published
experiments run it from an installed copy; its docstring, printed first below, describes the
geometry, the arms, the contact laws and the published numbers this model reproduces, and the
commands that run it. This example imports it and solves it.
"""

from __future__ import annotations

import contactmodel as cm

# The model ships with the package (contactmodel.models.scara_grasp): the published experiments use it from an
# installed copy. Every name of it is this example's too.
from contactmodel.models import scara_grasp as models_scara_grasp
from contactmodel.models.scara_grasp import *  # noqa: F403
from contactmodel.models.scara_grasp import B_SEED, REACH, THETA1, THETA2, B, build, fingertip_gaps

if __name__ == "__main__":
    print(models_scara_grasp.__doc__)
    print(f"theta1 = {THETA1:.6f} rad, theta2 = {THETA2:.6f} rad, reach = {REACH:.6f} m")
    print(f"fingertips {2 * (B_SEED - REACH):.5f} m apart with paper's b = {B_SEED} m; b = {B:.6f} m used")
    print(f"fingertip-to-face gaps: {fingertip_gaps(build())}")
    for sliding in (True, False):
        print(f"\n{'all sliding (cube slipping down at 1 m/s)' if sliding else 'all rolling (at rest)'}:")
        problem = cm.formulate(build(sliding))
        solution = cm.solve(problem)
        print(solution.table())
        import matplotlib.pyplot as plt

        # drawn into a pyplot figure, so that notebooks and the docs show it
        cm.draw(
            problem,
            solution,
            title=f"{'sliding' if sliding else 'at rest'}: {solution.status.value}",
            ax=plt.figure(figsize=(8, 6)).add_subplot(projection="3d"),
        )
