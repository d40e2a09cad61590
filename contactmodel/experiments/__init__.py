"""The published experiments, reproduced: instance generators, a resumable parallel runner, reports.

``contactmodel experiment NAME --out DIR`` runs one (see :mod:`.seeds`); the pieces are
:mod:`.generators` (instance families), :mod:`.runner` (tasks, SQLite store, process pool or
Dask) and :mod:`.reports` (tables beside the papers' numbers, heat maps, performance profiles).
"""
