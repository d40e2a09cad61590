"""Model files: a Python file whose ``build()`` returns a :class:`contactmodel.System` (or a
formulated :class:`contactmodel.Problem`), as the command line and :func:`contactmodel.compare` take them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from contactmodel.errors import ContactModelError

if TYPE_CHECKING:
    import contactmodel as cm


class ModelFileError(ContactModelError):
    """MODEL.py cannot be loaded or has no usable ``build()``."""


def load_model(path: str | Path) -> cm.System | cm.Problem:
    """Import ``path`` as a module and return what its ``build()`` returns; ``FILE.py:NAME``
    calls ``NAME()`` instead (a System or a formulated Problem)."""
    return load_model_and_scene(path)[0]


def load_model_and_scene(path: str | Path, attribute: str | None = None) -> tuple:
    """:func:`load_model` and the keywords of the file's ``simulation()`` ({} without one):
    the planes and controllers of its time-stepping scene. With ``attribute``, a third entry: the
    module's ``attribute`` or None (e.g. a quasistatic model's ``DRIVEN``)."""
    file, func = _split_target(path)
    if not file.is_file():
        raise ModelFileError(f"model file '{path}' not found")
    module_name = f"_contactmodel_model_{file.stem}"
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        raise ModelFileError(f"cannot import '{path}' as a Python module; give a .py file")
    module = importlib.util.module_from_spec(spec)
    folder = str(file.resolve().parent)
    sys.path.insert(0, folder)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
        scene = getattr(module, "simulation", None)
        built = _build(module, file, func), dict(scene()) if callable(scene) else {}
        return built if attribute is None else (*built, getattr(module, attribute, None))
    finally:
        sys.modules.pop(module_name, None)
        if folder in sys.path:
            sys.path.remove(folder)


def _split_target(path: str | Path) -> tuple[Path, str]:
    """``FILE.py:NAME`` -> (FILE.py, NAME); anything else -> (path, "build")."""
    file, sep, func = str(path).rpartition(":")
    if sep and func.isidentifier() and file.endswith(".py"):
        return Path(file), func
    return Path(path), "build"


def _build(module: ModuleType, path: str | Path, func: str = "build") -> cm.System | cm.Problem:
    import contactmodel as cm

    build = getattr(module, func, None)
    if not callable(build):
        raise ModelFileError(
            f"'{path}' defines no {func}() function; it must define {func}() -> contactmodel.System"
        )
    system = build()
    if not isinstance(system, (cm.System, cm.Problem)):
        raise ModelFileError(
            f"{func}() in '{path}' returned {type(system).__name__}; it must return a contactmodel.System "
            "(or a formulated contactmodel.Problem)"
        )
    return system
