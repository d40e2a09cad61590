"""Friction laws, one file each; every law states its contact's rows (``rows(ctx)``).

The laws exported here are the rows of :data:`contactmodel.friction.registry.LAWS`. Each public
name is imported from its file when first used (PEP 562), so importing the package, or its table
for the command line, loads no NumPy or Pyomo.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from contactmodel.friction.registry import LAWS

#: public name -> module defining it (imported on first access)
_LAZY: dict[str, str] = {
    "ContactContext": "contactmodel.friction.base",
    "FrictionLaw": "contactmodel.friction.base",
    **{law.name: law.module_name for law in LAWS},
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        value = importlib.import_module(f"{__name__}.{name}")  # a submodule, e.g. friction.sets
    else:
        from contactmodel.errors import UnknownAttributeError

        raise UnknownAttributeError(
            f"module {__name__!r} has no attribute {name!r}; its public names are listed in "
            f"{__name__}.__all__"
        )
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
