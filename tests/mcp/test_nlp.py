"""MNCPOpt / LCPOpt as Pyomo models: zero objective exactly at solutions, positive elsewhere."""

import pyomo.environ as pe
import pytest
from pyomo.mpec import Complementarity

import contactmodel as cm
from contactmodel import catalogue
from contactmodel.mcp.nlp import mncp_opt, set_slacks


@pytest.mark.parametrize("term", ["product", "componentwise"])
@pytest.mark.parametrize(
    "law", [cm.CoulombCone(0.5, form="mncp"), cm.Pyramid(0.5), cm.Ellipsoid(0.5, 1, 1, 0.5, form="mncp")]
)
@pytest.mark.parametrize("form", ["reduced", "sparse"])
def test_objective_vanishes_at_the_known_solution_only(term, law, form):
    case = catalogue.get("two_finger_grip")
    problem = cm.formulate(case.build(), friction=law, form=form)
    problem.load_forces(case.forces)
    nlp = mncp_opt(problem.model, term)
    set_slacks(nlp)
    assert pe.value(nlp.mncp_objective) < 1e-20
    problem.load_forces({k: [1.5 * v[0], *v[1:]] for k, v in case.forces.items()})
    nlp = mncp_opt(problem.model, term)
    set_slacks(nlp)
    assert pe.value(nlp.mncp_objective) > 1.0


def test_the_input_model_is_not_changed():
    problem = cm.formulate(catalogue.get("box_sliding").build(), friction=cm.Pyramid(0.3))
    before = sum(1 for _ in problem.model.component_data_objects(Complementarity, active=True))
    nlp = mncp_opt(problem.model)
    after = sum(1 for _ in problem.model.component_data_objects(Complementarity, active=True))
    assert before == after > 0
    assert not any(True for _ in nlp.component_data_objects(Complementarity, active=True))
    assert problem.model.component("mncp_objective") is None


def test_unknown_term_is_refused():
    problem = cm.formulate(catalogue.get("box_sliding").build(), friction=cm.Pyramid(0.3))
    with pytest.raises(cm.FormulationError, match="complementarity_term"):
        mncp_opt(problem.model, "squared")
