"""What the stages below :mod:`contactmodel.formulation` read of a formulated contact problem.

:class:`ContactProblem` is the part of :class:`~contactmodel.formulation.Problem` that the layout
(:mod:`contactmodel.layout`), the array compile (:mod:`contactmodel.mcp.direct`), the modes
(:mod:`contactmodel.modes`) and the updates (:mod:`contactmodel.update`) use. They are given a
Problem and annotate it with this protocol, so that none of them imports the module that imports
them (the package's import graph, annotations included, flows one way).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # annotations only: modules below formulation
    import scipy.sparse as sp

    from contactmodel.assembly import ContactAssembly
    from contactmodel.constants import Form
    from contactmodel.friction.base import ContactContext, FrictionLaw
    from contactmodel.friction.rows import ContactRows
    from contactmodel.mcp.compiled import CompiledMCP


class ContactProblem(Protocol):
    """A formulated contact problem (:class:`~contactmodel.formulation.Problem`)."""

    assembly: ContactAssembly
    form: Form
    laws: dict[str, FrictionLaw]
    contexts: dict[str, ContactContext]
    T: sp.csr_matrix

    @property
    def built(self) -> bool: ...

    @property
    def model(self) -> Any: ...

    @property
    def contact_names(self) -> list[str]: ...

    @property
    def rows_statement(self) -> dict[str, ContactRows] | None: ...

    @property
    def layout(self) -> Any: ...  # a contactmodel.layout.Layout (that module reads this protocol)

    @property
    def variables(self) -> list: ...

    def compile(self, refresh: bool = False) -> CompiledMCP: ...

    def block(self, contact: str) -> Any: ...

    def force_vector(self) -> Any: ...

    def reformulate(self, friction=None, form=None) -> ContactProblem: ...
