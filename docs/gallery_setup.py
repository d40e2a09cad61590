"""sphinx-gallery hook of the documentation build (named in docs/conf.py)."""

from __future__ import annotations


def tight_figures(gallery_conf: dict, fname: str) -> None:
    """Before each lesson or example: save figures with their outside legends (``cm.draw``
    puts its legend beside the axes) inside the picture."""
    import matplotlib

    matplotlib.rcParams["savefig.bbox"] = "tight"
