"""Assembly: A symmetric PSD, G against finite differences of contact-point motion, the seed's
LCP (32)-(33) rebuilt by hand from A and b, reduced and sparse forms agreeing."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

import contactmodel as cm
from contactmodel import catalogue
from contactmodel.catalogue import sliding_and_rolling_pair


def random_system(seed: int, n_bodies: int = 3, n_contacts: int = 5, check_normal: bool = False) -> cm.System:
    """Random boxes with random poses and twists, contacts at random points and normals."""
    rng = np.random.default_rng(seed)
    s = cm.System(gravity=(0, 0, -9.81), normal_velocity_tol=1e-8 if check_normal else np.inf)
    bodies = []
    for i in range(n_bodies):
        mass = rng.uniform(0.5, 3)
        bodies.append(
            s.add_body(
                f"b{i}",
                mass=mass,
                inertia=cm.inertia.box(mass, rng.uniform(0.1, 1.0, 3)),
                position=rng.normal(size=3),
                orientation=Rotation.random(random_state=rng).as_matrix(),
                velocity=rng.normal(size=3),
                angular_velocity=rng.normal(size=3),
                wrench=rng.normal(size=6),
            )
        )
    for j in range(n_contacts):
        a, b = rng.choice(n_bodies + 1, size=2, replace=False)
        if a == n_bodies:
            a, b = b, a
        other = s.ground if b == n_bodies else bodies[b]
        n = rng.normal(size=3)
        s.add_contact(
            bodies[a],
            other,
            point=rng.normal(size=3),
            normal=n / np.linalg.norm(n),
            torsion=bool(rng.integers(2)),
            name=f"k{j}",
        )
    return s


def material_point(body: cm.Body, point: np.ndarray, h: float) -> np.ndarray:
    """Position at time h of the material point at ``point`` when nu_dot = 0 (constant twist)."""
    r = point - body.position
    return body.position + body.velocity * h + Rotation.from_rotvec(body.angular_velocity * h).apply(r)


@given(st.integers(0, 10_000))
@settings(max_examples=25, deadline=None)
def test_A_is_symmetric_positive_semidefinite(seed):
    asm = cm.assemble(random_system(seed, n_contacts=8))
    A = asm.A
    np.testing.assert_allclose(A, A.T, atol=1e-12)
    assert np.linalg.eigvalsh(A).min() > -1e-9 * max(1.0, np.abs(A).max())
    # c^T A c is the kinetic-energy norm of the impulse G^T c: (G^T c)^T M^-1 (G^T c)
    c = np.random.default_rng(seed).normal(size=A.shape[0])
    g = asm.G.T @ c
    assert c @ A @ c == pytest.approx(g @ np.linalg.solve(asm.M.toarray(), g), rel=1e-9, abs=1e-12)


@given(st.integers(0, 10_000))
@settings(max_examples=25, deadline=None)
def test_G_and_Gdot_match_finite_differences_of_contact_point_motion(seed):
    system = random_system(seed)
    asm = cm.assemble(system)
    v = asm.v
    h = 1e-5
    for contact in system.contacts:
        rows = asm.contact_rows[contact.name]
        C = contact.frame
        pos = {}
        for sign, body in ((1.0, contact.body_a), (-1.0, contact.body_b)):
            if isinstance(body, cm.Body):
                pos[sign] = [material_point(body, contact.point, t) for t in (-h, 0.0, h)]
            else:
                pos[sign] = [contact.point] * 3
        rel = [pos[1.0][k] - pos[-1.0][k] for k in range(3)]
        vel = C @ (rel[2] - rel[0]) / (2 * h)
        acc = C @ (rel[2] - 2 * rel[1] + rel[0]) / h**2
        np.testing.assert_allclose(v[[rows["n"], rows["t"], rows["o"]]], vel, rtol=1e-6, atol=1e-6)
        # with nu_dot = 0 the relative acceleration is the G_dot nu term
        np.testing.assert_allclose(asm.gdot_nu[[rows["n"], rows["t"], rows["o"]]], acc, rtol=1e-4, atol=1e-4)
        if contact.torsion:
            wa = contact.body_a.angular_velocity
            wb = contact.body_b.angular_velocity if isinstance(contact.body_b, cm.Body) else 0.0
            assert v[rows["r"]] == pytest.approx(C[0] @ (wa - wb))


def test_b_is_G_Minv_f_plus_Gdot_nu_and_A_matches_dense_formula():
    asm = cm.assemble(random_system(7, n_contacts=6))
    M = asm.M.toarray()
    G = asm.G.toarray()
    Minv = np.linalg.inv(M)
    np.testing.assert_allclose(asm.A, G @ Minv @ G.T, atol=1e-10)
    np.testing.assert_allclose(asm.b, G @ Minv @ asm.f + asm.gdot_nu, atol=1e-10)


def test_velocity_product_terms_of_a_spinning_body():
    s = cm.System(gravity=(0, 0, 0))
    inertia = np.diag([1.0, 2.0, 3.0])
    w = np.array([1.0, 2.0, 0.5])
    s.add_body("spin", mass=1.0, inertia=inertia, angular_velocity=w)
    asm = cm.assemble(s)
    np.testing.assert_allclose(asm.f[3:], -np.cross(w, inertia @ w))


def test_reduced_pyramid_lcp_equals_seed000_eq32_33_built_by_hand():
    mu = 0.4
    problem = cm.formulate(sliding_and_rolling_pair(), friction=cm.Pyramid(mu))
    asm = problem.assembly
    assert asm.sliding == ["S"] and asm.rolling == ["R"]
    A, b = asm.A, asm.b
    S, R = asm.contact_rows["S"], asm.contact_rows["R"]
    vS = asm.v[[S["t"], S["o"]]]
    VSt, VSo = mu * vS / np.linalg.norm(vS)
    # columns of seed (33): c_Sn, c_Rn, s+_Rt, s+_Ro, a-_Rt, a-_Ro
    col_Sn = A[:, S["n"]] - A[:, S["t"]] * VSt - A[:, S["o"]] * VSo
    col_Rn = A[:, R["n"]] - A[:, R["t"]] * mu - A[:, R["o"]] * mu
    rows = [S["n"], R["n"], R["t"], R["o"]]
    M_seed = np.zeros((6, 6))
    M_seed[:4, 0] = col_Sn[rows]
    M_seed[:4, 1] = col_Rn[rows]
    M_seed[:4, 2] = A[rows, R["t"]]
    M_seed[:4, 3] = A[rows, R["o"]]
    M_seed[2, 4] = M_seed[3, 5] = 1.0
    M_seed[4, 1] = M_seed[5, 1] = 2 * mu
    M_seed[4, 2] = M_seed[5, 3] = -1.0
    r_seed = np.concatenate([b[rows], [0.0, 0.0]])

    compiled = problem.compile()
    mcp = compiled.mcp
    assert mcp.is_lcp
    order = [
        "contact[S].c_n",
        "contact[R].c_n",
        "contact[R].s_plus[t]",
        "contact[R].s_plus[o]",
        "contact[R].a_minus[t]",
        "contact[R].a_minus[o]",
    ]
    perm = [mcp.names.index(name) for name in order]
    np.testing.assert_allclose(mcp.M.toarray()[np.ix_(perm, perm)], M_seed, atol=1e-12)
    np.testing.assert_allclose(mcp.q[perm], r_seed, atol=1e-12)
    assert np.abs(M_seed).min(where=M_seed != 0, initial=1) > 0 and np.count_nonzero(M_seed[:4, :4]) == 16


def test_swapping_the_law_never_reassembles():
    system = sliding_and_rolling_pair()
    cone = cm.formulate(system, friction=cm.CoulombCone(0.4))
    pyramid = cone.reformulate(friction=cm.Pyramid(0.4))
    sparse = pyramid.reformulate(form="sparse")
    assert pyramid.assembly is cone.assembly is sparse.assembly
    system.contact("S").friction = cm.CoulombCone(0.4)
    per_contact = cm.formulate(cone.assembly, friction={"R": cm.Polygonal(0.4, k=8)})
    assert isinstance(per_contact.laws["R"], cm.Polygonal)
    assert isinstance(per_contact.laws["S"], cm.CoulombCone)
    assert per_contact.assembly is cone.assembly


@pytest.mark.parametrize("name", list(catalogue.CASES))
@pytest.mark.parametrize("law", ["cone", "pyramid"])
def test_reduced_and_sparse_forms_have_the_same_solutions(name, law):
    case = catalogue.get(name)
    # The cone in its second-order-cone form: the seed's MNCP squares the forces, so a natural
    # residual r there leaves the cone violated by ~sqrt(r) (box_push_sliding: residual 7e-13, a
    # force 4e-6 outside the cone), which the lifted point shows; the SOC form bounds it by r.
    friction = cm.CoulombCone(case.mu, form="soc") if law == "cone" else cm.Pyramid(case.mu)
    reduced = cm.formulate(case.build(), friction=friction)
    sparse = reduced.reformulate(form="sparse")
    # the known solution lifts into both; both solve; the accelerations (unique) agree
    sol_sparse = cm.solve(sparse, solver="newton")
    assert sol_sparse.status is cm.Status.SOLVED
    forces = {c.name: c.force for c in sol_sparse.contacts}
    reduced.load_forces(forces)
    compiled = reduced.compile()
    assert np.abs(cm.mcp.natural_residual(compiled.mcp, compiled.values())).max() < 1e-8


def test_unknown_effort_with_prescribed_acceleration():
    """A vertical prismatic joint lifting a 2 kg link at a prescribed 1.5 m/s^2 needs an effort
    m (a + g); a box resting on that link then feels the same acceleration (Trinkle et al. (1997) §2.5)."""
    from contactmodel.manipulator import Link, Prismatic

    g, m, a = 9.81, 2.0, 1.5
    s = cm.System(gravity=(0, 0, -g))
    lift = s.add_manipulator(
        "lift",
        joints=[Prismatic(axis=(0, 0, 1))],
        links=[Link(m, cm.inertia.box(m, (1, 1, 0.1)))],
        q=[0.0],
        efforts=[None],
        prescribed_accelerations=[a],
    )
    asm = cm.assemble(s)
    nu_dot = asm.accelerations(np.zeros(0))
    assert nu_dot[0] == pytest.approx(a)
    assert asm.efforts(np.zeros(0), nu_dot)[0] == pytest.approx(m * (a + g))

    box = s.add_body("box", mass=1.0, inertia=cm.inertia.box(1.0, (0.2, 0.2, 0.2)), position=(0, 0, 0.15))
    s.add_contact(
        box, lift.link(0), point=(0, 0, 0.05), normal=(0, 0, 1), friction=cm.Pyramid(0.5), name="top"
    )
    solution = cm.solve(cm.formulate(s, form="sparse"), solver="newton")
    assert solution.status is cm.Status.SOLVED
    assert solution.contact("top").force[0] == pytest.approx(1.0 * (a + g))
    assert solution.bodies[0].linear_acceleration[2] == pytest.approx(a)
    assert solution.joints[0].effort == pytest.approx((m + 1.0) * (a + g))


# -- the assembly interface, the forms and Problem.interpret -----------------------------------
def test_both_assemblies_declare_the_contact_assembly_interface():
    from contactmodel.assembly import ContactAssembly, MatrixAssembly

    asm = cm.assemble(sliding_and_rolling_pair())
    matrices = cm.formulate_from_matrices(asm.A, asm.b, mu=0.4, names=list(asm.contact_rows)).assembly
    assert isinstance(asm, ContactAssembly) and isinstance(matrices, MatrixAssembly)
    assert isinstance(matrices, ContactAssembly)
    assert asm.has_dynamics and not matrices.has_dynamics
    c = np.random.default_rng(1).uniform(0, 1, asm.m)
    for a in (asm, matrices):
        assert a.m == len(a.rows) == 6
        assert a.indices("S") == [a.row("S", comp) for comp in ("n", "t", "o")]
    # the same A and b: the same accelerations from either
    np.testing.assert_allclose(matrices.contact_accelerations(c), asm.contact_accelerations(c), atol=1e-12)
    empty = matrices.motion(c)
    assert empty.nu_dot.size == 0 and empty.bodies == [] and empty.joints == []
    motion = asm.motion(c)
    np.testing.assert_allclose(asm.G @ motion.nu_dot + asm.gdot_nu, asm.contact_accelerations(c), atol=1e-12)
    for i, body in enumerate(motion.bodies):
        assert body.name == asm.system.bodies[i].name
        np.testing.assert_array_equal(body.linear_acceleration, motion.nu_dot[6 * i : 6 * i + 3])
        np.testing.assert_array_equal(body.angular_acceleration, motion.nu_dot[6 * i + 3 : 6 * i + 6])


def test_forms_are_an_enum_and_their_names_still_work():
    from contactmodel.formulation import FORMS, Form

    system = sliding_and_rolling_pair()
    sparse = cm.formulate(system, friction=cm.Pyramid(0.4), form="sparse")
    assert sparse.form is Form.SPARSE and sparse.form == "sparse"
    assert sparse.reformulate(form=Form.REDUCED).form is Form.REDUCED
    assert FORMS == ("reduced", "sparse")
    with pytest.raises(cm.FormulationError, match=r"form must be one of \('reduced', 'sparse'\)"):
        cm.formulate(system, friction=cm.Pyramid(0.4), form="dense")


@pytest.mark.parametrize("form", ["reduced", "sparse"])
def test_interpret_maps_the_solvers_point_to_physics(form):
    problem = cm.formulate(sliding_and_rolling_pair(), friction=cm.Pyramid(0.4), form=form)
    solution = cm.solve(problem, solver="newton")
    assert solution.status is cm.Status.SOLVED
    point = problem.interpret(solution.x)
    asm = problem.assembly
    np.testing.assert_allclose(point.accelerations, asm.contact_accelerations(point.forces), atol=1e-12)
    for contact in solution.contacts:
        force, accel = point.contact(contact.name)
        np.testing.assert_array_equal(force, contact.force)
        np.testing.assert_array_equal(accel, contact.acceleration)
    assert [b.name for b in point.motion.bodies] == [b.name for b in solution.bodies]
    assert point.checks == {k: v for k, v in solution.checks.items() if k != "law_residual"}
    assert point.checks["normal_complementarity"] < 1e-8
    assert ("newton_euler" in point.checks) == (form == "sparse")
    if form == "sparse":
        assert point.checks["newton_euler"] < 1e-8
        # a point off the Newton-Euler rows shows in the check: nu_dot is the model's own variable
        x = solution.x.copy()
        x[list(problem.compile().mcp.names).index("nu_dot['slab.vz']")] += 1.0
        assert problem.interpret(x).checks["newton_euler"] == pytest.approx(asm.M[2, 2], rel=1e-8)


def test_a_declared_law_is_checked_once():
    calls = []

    class Counting(cm.Pyramid):
        def check_contact(self, contact):
            calls.append(contact.name)
            super().check_contact(contact)

    system = sliding_and_rolling_pair()
    law = Counting(0.4)
    system.add_contact(
        system.body("block"), system.ground, point=(0, 0, 0), normal=(0, 0, 1), friction=law, name="D"
    )
    assert calls == ["D"]
    cm.formulate(system, friction={"S": law, "R": law})
    assert calls == ["D", "S", "R"]  # the overrides, checked at formulation; "D" not again


def test_contact_rows_of_many_contacts_are_each_contacts_own() -> None:
    """G and G_dot nu of spinning bodies touching each other and the ground (torsion rows, a
    curvature term) are, row for row and bit for bit, what each contact's own terms give
    (``assembly._point_terms``, the per-contact computation), and match v_point = v + w x r and
    the bias w x (w x r) in the contact frame."""
    from contactmodel import assembly as asm_module

    rng = np.random.default_rng(7)
    s = cm.System(gravity=(0, 0, -9.81))
    bodies = [
        s.add_body(
            f"b{i}",
            mass=1.0 + i,
            inertia=cm.inertia.box(1.0 + i, (0.2, 0.3, 0.4)),
            position=rng.uniform(-1, 1, 3),
            velocity=rng.uniform(-1, 1, 3),
            angular_velocity=rng.uniform(-2, 2, 3),
        )
        for i in range(4)
    ]
    k = 0
    for i, body in enumerate(bodies):
        for other in (s.ground, bodies[(i + 1) % 4]):
            n = rng.standard_normal(3)
            s.add_contact(
                body,
                other,
                point=rng.uniform(-1, 1, 3),
                normal=n / np.linalg.norm(n),
                torsion=bool(k % 2),
                curvature=rng.uniform(-1, 1, 4 if k % 2 else 3) if k == 3 else None,
                name=f"c{k}",
            )
            k += 1
    offsets = {id(b): 6 * i for i, b in enumerate(bodies)}
    rows = asm_module._contact_rows(s, offsets, 24)
    G, gdot = rows.G.toarray(), rows.gdot_nu
    for contact in s.contacts:
        r = list(rows.contact_rows[contact.name].values())
        expected_G, expected_b = np.zeros((len(r), 24)), np.zeros(len(r))
        for body, sign in ((contact.body_a, 1.0), (contact.body_b, -1.0)):
            if body is s.ground:
                continue
            cols, jac, acc = asm_module._point_terms(body, contact, offsets)
            expected_G[:, cols] += sign * jac
            expected_b += sign * acc
            arm = contact.point - body.position
            w = body.angular_velocity
            np.testing.assert_allclose(
                jac[:3] @ np.concatenate([body.velocity, w]),
                contact.frame @ (body.velocity + np.cross(w, arm)),
                atol=1e-12,
            )
            np.testing.assert_allclose(acc[:3], contact.frame @ np.cross(w, np.cross(w, arm)), atol=1e-12)
        if contact.curvature is not None:
            expected_b += contact.curvature
        assert G[r].tobytes() == expected_G.tobytes()
        assert gdot[r].tobytes() == expected_b.tobytes()
