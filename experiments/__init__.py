"""Runnable studies: ``python -m experiments.<name> --help``.

Each module is a thin ``main(argv)``: parse options, load, compute through the
library, write results. Heavy imports happen inside ``main`` so that
``--help`` answers at once.
"""
