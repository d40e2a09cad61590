"""The Pyomo component of one Coulomb cone complementarity block (the math is
:mod:`contactmodel.mcp.cones`): declared in a contact's Block for a ``CoulombCone(mu, form="soc")``
contact that rolls (and the other laws' cone blocks: ``ContactRows.cone``), read by
:func:`contactmodel.mcp.compile.compile_model`."""

from __future__ import annotations

from contactmodel._pyomo import BlockData, add_expression, add_param, declare_custom_block, pe
from contactmodel.mcp.cones import AXES, TORSION_AXES


@declare_custom_block(name="SOCComplementarity")
class SOCComplementarityData(BlockData):
    """One Coulomb cone complementarity block in a Pyomo model (see module docstring).

    After :meth:`set`, it holds ``mu`` (Param), ``force[n|t|o]`` (Expressions, each one free
    variable of the model) and ``accel[n|t|o]`` (Expressions, the rows matched with them), or the
    four axes n, t, o, r of a soft finger's block. Compiled
    into one block of
    :class:`contactmodel.mcp.types.CoulombBlocks`.
    """

    def set(self, force: dict, accel: dict, mu: float) -> None:
        """Declare ``force[axis]`` (free variables) complementary, in the cone sense, to
        ``accel[axis]`` (expressions), axis in n, t, o (and r, for a block of four)."""
        # one shared index set (model.cone_axes): a Set per block cost ~40% of formulating 1000 contacts
        root = self.model()
        name, labels, doc = (
            ("cone_axes", AXES, "axes of the cone blocks")
            if len(force) == 3
            else ("torsion_cone_axes", TORSION_AXES, "axes of the cone blocks of four rows")
        )
        axes = root.component(name)
        if axes is None:
            axes = pe.Set(initialize=labels, ordered=True, doc=doc)
            root.add_component(name, axes)
        # mutable: Problem.update(mu=...) changes it; compiled MCPs re-read it (a domain: 2x faster)
        add_param(self, "mu", float(mu))
        add_expression(self, "force", force, axes)
        add_expression(self, "accel", accel, axes)


def cone_blocks(model: pe.Block) -> list[SOCComplementarityData]:
    """The active cone blocks of ``model``; without walking it when none was ever declared (the
    first :meth:`SOCComplementarityData.set` adds ``cone_axes`` or ``torsion_cone_axes`` to the top
    model)."""
    root = model.model()
    if root.component("cone_axes") is None and root.component("torsion_cone_axes") is None:
        return []
    blocks = model.component_data_objects(pe.Block, active=True, descend_into=True)
    return [b for b in blocks if isinstance(b, SOCComplementarityData)]
