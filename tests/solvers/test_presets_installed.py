"""An installed (non-editable) copy of the package finds and reads its shipped presets.

Builds a wheel of a copy of this checkout's package, unpacks it (a wheel is a zip of the installed
tree) into a temporary folder and imports ``contactmodel`` from there in a fresh interpreter whose working
directory is elsewhere, so neither the checkout nor ``solvers_config/`` can be reached.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.install

_CHECK = """
import sys, contactmodel
from contactmodel import solvers
root = sys.argv[1]
assert contactmodel.__file__.startswith(root), contactmodel.__file__
files = solvers.preset_files("newton")
assert files == [solvers.CONFIG_DIR / "newton.toml"] and str(files[0]).startswith(root), files
assert solvers.make_options("newton", {}).max_iter == 321
print("ok")
"""


def test_an_unpacked_wheel_reads_its_packaged_newton_preset(tmp_path):
    src = tmp_path / "src"  # a clean copy: the build writes build/ and *.egg-info next to its source
    shutil.copytree(ROOT / "contactmodel", src / "contactmodel", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy(ROOT / name, src / name)
    wheels = tmp_path / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
        + ["-w", str(wheels), str(src)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    if build.returncode != 0:
        pytest.skip(f"could not build a wheel here: {build.stderr.strip()[-300:]}")
    (wheel,) = wheels.glob("contactmodel-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as zf:
        assert "contactmodel/solvers/presets/newton.toml" in zf.namelist()
        zf.extractall(site)
    preset = site / "contactmodel" / "solvers" / "presets" / "newton.toml"
    preset.write_text(preset.read_text() + "max_iter = 321\n")  # a value only this copy has
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CONTACTMODEL_PRESETS")}
    env["PYTHONPATH"] = str(site)
    run = subprocess.run(
        [sys.executable, "-c", _CHECK, str(site)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"
