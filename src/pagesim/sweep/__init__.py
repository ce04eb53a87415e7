"""Sweeps: grids of runs on local workers or a Dask cluster, in a resumable SQLite database.

Modules: ``grid`` (the grid from the command line or TOML), ``keys`` (trace digests, run keys),
``traces`` (each trace read once, mapped by workers), ``plan`` (runs, resuming, ``--plan``),
``onepass`` (stack policies over every size at once), ``worker`` (one task into rows),
``local`` (the process pool), ``cluster`` (Dask distributed, optional), ``store`` (SQLite),
``results`` (a pandas DataFrame, export) and ``driver`` (:func:`pagesim.sweep.driver.run_sweep`).
Nothing is imported here, so that a worker process loads only what it runs. docs/sweep.md is the
reference.
"""
