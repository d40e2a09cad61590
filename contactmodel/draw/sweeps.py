""":func:`sweep_plot`: a scalar over one or two swept parameters, with the contact-mode boundaries."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from scipy.ndimage import distance_transform_edt

from contactmodel.draw.canvas import DPI, save
from contactmodel.errors import DrawingError


def _mode_indices(modes) -> tuple[np.ndarray, list[str]]:
    arr = np.asarray(modes)
    if arr.dtype.kind in "iub":
        names = [str(v) for v in sorted(np.unique(arr).tolist())]
        lookup = {v: i for i, v in enumerate(sorted(np.unique(arr).tolist()))}
        return np.vectorize(lookup.get)(arr).astype(float), names
    names: list[str] = []
    for v in arr.ravel().tolist():
        if str(v) not in names:
            names.append(str(v))
    index = {name: i for i, name in enumerate(names)}
    return np.array([index[str(v)] for v in arr.ravel().tolist()], dtype=float).reshape(arr.shape), names


def sweep_plot(
    values_x: Sequence[float] | np.ndarray,
    z: Sequence | np.ndarray,
    values_y: Sequence[float] | np.ndarray | None = None,
    *,
    modes: Sequence | np.ndarray | None = None,
    ax: Axes | None = None,
    xlabel: str = "",
    ylabel: str = "",
    zlabel: str = "",
    title: str = "",
    label: str | None = None,
    cmap: str = "viridis",
    out: str | Path | None = None,
    figsize: tuple[float, float] = (6.4, 4.8),
    dpi: int = DPI,
) -> Axes:
    """Plot a solution scalar ``z`` over a parameter sweep and return the Axes.

    One swept parameter (``values_y`` None): ``z`` has shape (nx,), a line over ``values_x``;
    ``modes`` (nx,) (strings or integers) shades each run of equal mode and names it. Two:
    ``z`` has shape (ny, nx) (row j is ``values_y[j]``), a heat map (``ax.images[0]``, cells
    centred on a uniform grid) with a colour bar, and ``modes`` (ny, nx) adds the mode
    boundaries as contour lines of the mode index, each region labelled. Call again with the
    same ``ax`` to overlay lines (``label`` names each in the legend). ``out`` saves the figure.
    """
    x = np.asarray(values_x, dtype=float)
    zz = np.asarray(z, dtype=float)
    own_figure = ax is None
    if own_figure:
        fig = Figure(figsize=figsize, dpi=dpi)
        ax = fig.add_subplot(1, 1, 1)
    fig = ax.figure
    if values_y is None:
        if zz.shape != x.shape:
            raise DrawingError(f"z must have the shape of values_x {x.shape} (got {zz.shape})")
        line = ax.plot(x, zz, marker=".", lw=1.5, label=label)[0]
        if modes is not None:
            idx, names = _mode_indices(modes)
            if idx.shape != x.shape:
                raise DrawingError(f"modes must have the shape of values_x {x.shape} (got {idx.shape})")
            edges = np.concatenate([[x[0]], 0.5 * (x[1:] + x[:-1]), [x[-1]]])
            cmap_modes = _mode_colours(len(names))
            shown: set[int] = set()
            start = 0
            for k in range(1, len(x) + 1):
                if k == len(x) or idx[k] != idx[start]:
                    m = int(idx[start])
                    ax.axvspan(
                        edges[start],
                        edges[k],
                        color=cmap_modes[m],
                        alpha=0.25,
                        lw=0,
                        label=None if m in shown else names[m],
                    )
                    shown.add(m)
                    start = k
            ax.legend(fontsize=8)
        elif label is not None:
            ax.legend(fontsize=8)
        line.set_gid("sweep")
        ax.set_ylabel(zlabel)
    else:
        y = np.asarray(values_y, dtype=float)
        if zz.shape != (len(y), len(x)):
            raise DrawingError(
                f"z must have shape (len(values_y), len(values_x)) = {(len(y), len(x))} (got {zz.shape})"
            )
        dx = (x[-1] - x[0]) / max(len(x) - 1, 1) if len(x) > 1 else 1.0
        dy = (y[-1] - y[0]) / max(len(y) - 1, 1) if len(y) > 1 else 1.0
        extent = (x[0] - dx / 2, x[-1] + dx / 2, y[0] - dy / 2, y[-1] + dy / 2)
        image = ax.imshow(
            zz, origin="lower", extent=extent, aspect="auto", cmap=cmap, interpolation="nearest"
        )
        image.set_gid("sweep")
        fig.colorbar(image, ax=ax, label=zlabel)
        if modes is not None:
            idx, names = _mode_indices(modes)
            if idx.shape != zz.shape:
                raise DrawingError(f"modes must have the shape of z {zz.shape} (got {idx.shape})")
            if len(names) > 1 and min(len(x), len(y)) > 1:
                X, Y = np.meshgrid(x, y)
                cs = ax.contour(
                    X, Y, idx, levels=np.arange(len(names) - 1) + 0.5, colors="white", linewidths=1.5
                )
                cs.set_gid("mode-boundaries")
            for m, name in enumerate(names):
                inside = np.pad(idx == m, 1)
                if not inside.any():
                    continue
                depth = distance_transform_edt(inside)[1:-1, 1:-1]
                jj, ii = np.unravel_index(int(np.argmax(depth)), depth.shape)
                ax.text(
                    float(x[ii]),
                    float(y[jj]),
                    name,
                    ha="center",
                    va="center",
                    fontsize=8,
                    bbox={"boxstyle": "round,pad=0.2", "fc": "white", "alpha": 0.8, "lw": 0},
                )
        ax.set_ylabel(ylabel)
    ax.set_xlabel(xlabel)
    if title:
        ax.set_title(title, fontsize=10)
    if out is not None:
        save(fig, out)
    return ax


def _mode_colours(count: int) -> list:
    palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
    return [palette[i % len(palette)] for i in range(count)]
