"""Contact analysis: modes, complementary (mode) cones, verification, diagnostics, all solutions.

- :func:`contact_modes` / :func:`classify`: the mode of each contact (separate, roll, slide with
  its direction, approach; degenerate cases named) and the complementarity pairs deciding it;
- :func:`mode_cone`, :func:`enumerate_modes`, :func:`mode_census`: the wrenches consistent with a
  mode assignment in span and face form (cddlib), Berard et al.'s (2004) counts, :func:`plot_disc_cones`;
- :func:`verify`: residuals per pair, friction-set membership, colinearity, Trinkle et al. (1997) Prop. 1;
- :func:`diagnose`: ranks, definiteness, matrix classes, existence/uniqueness conditions;
- :func:`decide`: existence/uniqueness with certificates (Farkas ray, pattern MILP, P-matrix);
  :func:`~contactmodel.analysis.exact_geometry.exact_lcp`: a problem's LCP in rational
  arithmetic (the declared floats taken as exact), where decide's trees become exact;
- :func:`all_solutions`: every solution of a small LCP, multistart for MNCPs;
- :func:`theorem1`: Andreani et al.'s (2002) Theorem 1 hypotheses at an MNCPOpt point.

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
- S. Berard, K. Egan and J. C. Trinkle, "Contact modes and complementary cones", ICRA 2004.
"""

from contactmodel.analysis.cones import (
    Census,
    ModeCone,
    contact_patterns,
    disc_cones,
    disc_example,
    enumerate_modes,
    face_form,
    mode_census,
    mode_cone,
    plot_disc_cones,
    span_form,
)
from contactmodel.analysis.decide import Existence, decide
from contactmodel.analysis.diagnose import Condition, Diagnosis, diagnose, schur_condition
from contactmodel.analysis.lcp import WrenchMap, pairs_of, wrench_map
from contactmodel.analysis.matrices import (
    Verdict,
    is_column_sufficient,
    is_copositive,
    is_copositive_plus,
    is_p0_matrix,
    is_p_matrix,
    is_row_sufficient,
    is_s_matrix,
)
from contactmodel.analysis.modes import (
    ContactMode,
    Mode,
    PatternLabel,
    classify,
    contact_modes,
    pattern_label,
)
from contactmodel.analysis.multiple import SolutionSet, all_solutions
from contactmodel.analysis.theorem1 import Theorem1, theorem1
from contactmodel.analysis.verify import VerificationReport, friction_excess, verify

__all__ = [
    "Census",
    "Condition",
    "ContactMode",
    "Mode",
    "Diagnosis",
    "Existence",
    "ModeCone",
    "PatternLabel",
    "SolutionSet",
    "Theorem1",
    "VerificationReport",
    "Verdict",
    "WrenchMap",
    "all_solutions",
    "classify",
    "contact_modes",
    "contact_patterns",
    "decide",
    "diagnose",
    "disc_cones",
    "disc_example",
    "enumerate_modes",
    "face_form",
    "friction_excess",
    "is_column_sufficient",
    "is_copositive",
    "is_copositive_plus",
    "is_p0_matrix",
    "is_p_matrix",
    "is_row_sufficient",
    "is_s_matrix",
    "mode_census",
    "mode_cone",
    "pairs_of",
    "pattern_label",
    "plot_disc_cones",
    "schur_condition",
    "span_form",
    "theorem1",
    "verify",
    "wrench_map",
]
