"""Models the published experiments are built on, shipped with the package so that
``contactmodel experiment ...`` runs from an installed copy: the rod and cube of Trinkle and Pang
(1997) (:mod:`.rod_cube`) and the two-SCARA grasp of Andreani et al. (2002) (:mod:`.scara_grasp`).
``examples/rod_cube.py`` and ``examples/scara_grasp.py`` import them from here.
"""
