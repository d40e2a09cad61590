"""Where the benchmarks find what the project does not ship: peer-solver scripts and FCLIB files.

Each folder is given by a command-line flag, defaulting to an environment variable (``ENV``); a
script that needs a folder that is not there stops with a message naming the flag. Numpy-free and
contactmodel-free, so the peer wrappers (run with other interpreters) can import it too.
"""

from __future__ import annotations

import os
from pathlib import Path

#: flag -> environment variable holding its default
ENV = {"--tools": "CONTACTMODEL_PEERS", "--bench": "CONTACTMODEL_FCLIB"}
#: what each flag's folder holds, for the messages
WHAT = {
    "--tools": "the peer scripts (peer_siconos.py, peer_gamspy_path.py, peer_lemkelcp.py)",
    "--bench": "FCLIB .hdf5 and Siconos .dat frictional contact files",
}
#: the project's own copy of the peer instance generator
MAKE_INSTANCES = Path(__file__).resolve().parents[1] / "tests" / "data" / "make_peer_instances.py"


def default(flag: str) -> Path | None:
    """The default folder of ``flag``: its environment variable, or None when unset."""
    value = os.environ.get(ENV[flag], "")
    return Path(value) if value else None


def missing(path: Path | str | None, flag: str) -> str | None:
    """None when ``path`` is a folder, else a message naming ``flag`` and its variable."""
    if path is not None and Path(path).is_dir():
        return None
    where = f"{path} is not a folder" if path is not None else f"no folder given and {ENV[flag]} is unset"
    return f"{where}: pass {flag} DIR, the folder of {WHAT[flag]} (or set {ENV[flag]})"


def require(path: Path | str | None, flag: str) -> Path:
    """``path`` as a Path, or exit with :func:`missing`'s message."""
    problem = missing(path, flag)
    if problem:
        raise SystemExit(problem)
    return Path(path)  # type: ignore[arg-type]
