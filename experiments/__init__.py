"""Runnable studies: ``python -m experiments.<name> --help``.

Each module is a thin ``main(argv)``: parse options, load, compute through the
library, write results. Heavy imports happen inside ``main`` so that
``--help`` answers at once.

The commands parallelise over batches themselves (``--n-jobs``); the matrices
their linear algebra handles are small (runs x runs), where a multi-threaded
BLAS only competes with the batches for the cores (the main job with
``--n-jobs 2``: 40.0 s with OpenBLAS's threads, 31.8 s without; the numbers
are identical). So BLAS runs one thread per process unless the user set
``OPENBLAS_NUM_THREADS`` or ``MKL_NUM_THREADS``; this is set before numpy is
first imported, which every command's module does.
"""

import os as _os

for _name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_name, "1")
