"""The one table of friction laws (``contactmodel/friction/registry.py``): the exports, the command
line's specs and their accepted-forms text, and the documentation all follow its rows, so a law is
added by its file plus one row."""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

import contactmodel as cm
import contactmodel.friction as friction
from contactmodel.cli import main
from contactmodel.errors import FrictionLawError
from contactmodel.friction import registry
from contactmodel.friction.base import FrictionLaw
from contactmodel.friction.registry import ACCEPTED, FRICTION_SPECS, LAWS, LawEntry
from contactmodel.friction.spec import parse_friction

ROOT = Path(__file__).resolve().parents[2]
NAMES = [law.name for law in LAWS]
SPECS = [law for law in LAWS if law.cli is not None]


def _law_classes_in_files() -> dict[str, str]:
    """Every concrete FrictionLaw subclass defined in a file of contactmodel/friction -> its file."""
    found = {}
    for info in pkgutil.iter_modules(friction.__path__):
        module = importlib.import_module(f"contactmodel.friction.{info.name}")
        for name, obj in vars(module).items():
            if (
                inspect.isclass(obj)
                and issubclass(obj, FrictionLaw)
                and obj.__module__ == module.__name__
                and not inspect.isabstract(obj)
            ):
                found[name] = info.name
    return found


def test_every_law_file_has_a_row_and_every_row_its_class():
    assert {law.name: law.module for law in LAWS} == _law_classes_in_files()
    assert len(set(NAMES)) == len(NAMES)


@pytest.mark.parametrize("law", LAWS, ids=NAMES)
def test_every_law_is_exported_from_the_package_and_from_friction(law):
    cls = law.cls
    assert issubclass(cls, FrictionLaw) and cls.__name__ == law.name
    assert getattr(cm, law.name) is cls and law.name in cm.__all__
    assert getattr(friction, law.name) is cls and law.name in friction.__all__
    namespace: dict = {}
    exec(f"from contactmodel import {law.name}", namespace)
    assert namespace[law.name] is cls


def test_the_law_exports_are_exactly_the_table():
    assert set(friction.__all__) - {"ContactContext", "FrictionLaw"} == set(NAMES)
    public = {name: getattr(cm, name) for name in cm.__all__}
    laws = {name for name, obj in public.items() if isinstance(obj, type) and issubclass(obj, FrictionLaw)}
    assert laws - {"FrictionLaw"} == set(NAMES)


def test_anisotropic_cone_is_public():
    from contactmodel import AnisotropicCone
    from contactmodel.friction import anisotropic

    assert cm.AnisotropicCone is AnisotropicCone is anisotropic.AnisotropicCone
    expected = "AnisotropicCone(mu_t=0.2, mu_o=0.6, auto=True, form=<ConeForm.SOC: 'soc'>)"
    assert repr(cm.AnisotropicCone(0.2, 0.6)) == expected


def test_rows_name_and_write_their_specs_consistently():
    clis = [law.cli for law in SPECS]
    assert len(set(clis)) == len(clis)
    for law in LAWS:
        assert (law.cli is None) == (law.syntax is None), law
        low, high = law.params
        assert 0 <= low <= high, law
        if law.cli is not None:
            assert law.cli == law.cli.lower() and re.split(r"[:\[]", law.syntax)[0] == law.cli, law
    assert registry.by_cli("polyhedral") is None  # a law without a spec: its parameter is a matrix


@pytest.mark.parametrize("law", SPECS, ids=[law.cli for law in SPECS])
def test_every_cli_name_parses(law):
    low, high = law.params
    spec = ":".join([law.cli.upper(), *["0.5"] * low])  # the fewest parameters, all numbers
    assert type(parse_friction(spec)) is law.cls, spec
    with pytest.raises(FrictionLawError, match="parameter.*accepted forms: " + re.escape(ACCEPTED)):
        parse_friction(":".join([law.cli, *["0.5"] * (high + 1)]))


def test_the_accepted_forms_text_lists_every_spec(capsys):
    assert FRICTION_SPECS == tuple(law.syntax for law in SPECS)
    assert all(law.syntax in ACCEPTED.split(", ") for law in SPECS)
    with pytest.raises(FrictionLawError) as caught:
        parse_friction("coulomb:0.5")
    assert all(law.syntax in str(caught.value) for law in SPECS)
    assert main(["solve", "--help"]) == 0
    # argparse wraps the help at spaces and after hyphens ("max-" / "work"): read it unwrapped
    help_text = re.sub(r"\s+", " ", re.sub(r"-\n\s*", "-", capsys.readouterr().out))
    assert all(law.syntax in help_text for law in SPECS)


def _fake_law_module() -> types.ModuleType:
    from contactmodel.friction.pyramid import Pyramid

    module = types.ModuleType("contactmodel.friction._fake_sticky")

    class Sticky(Pyramid):
        """A pyramid under another name: a law the table did not have."""

    Sticky.__module__ = module.__name__
    module.Sticky = Sticky
    return module


def test_a_law_added_to_the_table_becomes_parseable(monkeypatch):
    module = _fake_law_module()
    monkeypatch.setitem(sys.modules, module.__name__, module)
    row = LawEntry("Sticky", "_fake_sticky", cli="sticky", syntax="sticky:MU", params=(1, 1))
    with pytest.raises(FrictionLawError, match="unknown friction law 'sticky'"):
        parse_friction("sticky:0.4")
    monkeypatch.setattr(registry, "LAWS", (*LAWS, row))
    law = parse_friction("sticky:0.4")
    assert type(law) is module.Sticky and law.mu == 0.4
    with pytest.raises(FrictionLawError, match="has 2 parameter"):
        parse_friction("sticky:0.4:1")


def test_a_new_law_is_one_file_plus_one_row(tmp_path):
    """A copy of the package with one more law file and one more row: the law is exported from
    both packages, parses on the command line, and is listed in the accepted forms, with no other
    edit."""
    package = tmp_path / "contactmodel"
    shutil.copytree(ROOT / "contactmodel", package, ignore=shutil.ignore_patterns("__pycache__"))
    (package / "friction" / "sticky.py").write_text(
        "from contactmodel.friction.pyramid import Pyramid\n\n\nclass Sticky(Pyramid):\n    pass\n",
        encoding="utf-8",
    )
    table = package / "friction" / "registry.py"
    head = "LAWS: tuple[LawEntry, ...] = (\n"
    text = table.read_text(encoding="utf-8")
    assert head in text
    row = '    LawEntry("Sticky", "sticky", cli="sticky", syntax="sticky:MU", params=(1, 1)),\n'
    table.write_text(text.replace(head, head + row), encoding="utf-8")
    code = (
        "import contactmodel as cm, contactmodel.friction as f\n"
        "from contactmodel import Sticky\n"
        "from contactmodel.friction.spec import ACCEPTED, parse_friction\n"
        "assert cm.Sticky is f.Sticky is Sticky and 'Sticky' in cm.__all__ and 'Sticky' in f.__all__\n"
        "assert type(parse_friction('sticky:0.3')) is Sticky and 'sticky:MU' in ACCEPTED.split(', ')\n"
        "print('ok', cm.__file__)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok", str(package / "__init__.py")]


def test_the_table_loads_no_numpy():
    """The package, its friction package and the table (what --help and argument errors read) stay
    cheap: the laws' files are imported when a law is first used."""
    code = (
        "import sys, contactmodel, contactmodel.friction\n"
        "from contactmodel.friction.registry import ACCEPTED, LAWS\n"
        "print(sorted(m for m in sys.modules if m == 'numpy' or m.startswith('contactmodel.friction.')))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['contactmodel.friction.registry']"


def test_the_documentation_lists_every_law():
    api = set(re.findall(r"^   (\w+)$", (ROOT / "docs" / "api.rst").read_text(encoding="utf-8"), re.M))
    guide = (ROOT / "docs" / "friction.rst").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in NAMES:
        assert name in api, f"docs/api.rst does not list {name}"
        assert f":class:`~contactmodel.{name}`" in guide, f"docs/friction.rst has no section on {name}"
        assert f"| `{name}(" in readme, f"README.md's table of friction laws has no row for {name}"
