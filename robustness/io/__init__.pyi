# The lazy names of robustness.io for static tools: written by `python -m robustness._lazy` from its
# __init__.py's map (tests/test_conventions.py checks that they agree). Do not edit by hand.

from robustness.io import arrays as arrays
from robustness.io import case_table as case_table
from robustness.io import challenge as challenge
from robustness.io import dermavqa as dermavqa
from robustness.io import file_source as file_source
from robustness.io import folders as folders
from robustness.io import masks as masks
from robustness.io import raters as raters
from robustness.io import tiff as tiff
from robustness.io.arrays import ArraySource as ArraySource
from robustness.io.arrays import from_arrays as from_arrays
from robustness.io.case_table import read_case_table as read_case_table
from robustness.io.challenge import Challenge as Challenge
from robustness.io.challenge import MaskSource as MaskSource
from robustness.io.dermavqa import load_challenge as load_challenge
from robustness.io.dermavqa import load_dermavqa as load_dermavqa
from robustness.io.dermavqa import write_dermavqa as write_dermavqa
from robustness.io.file_source import FileSource as FileSource
from robustness.io.masks import MASK_SUFFIXES as MASK_SUFFIXES
from robustness.io.masks import MaskFormat as MaskFormat
from robustness.io.masks import read_mask as read_mask
from robustness.io.masks import read_shape as read_shape
from robustness.io.raters import load_raters as load_raters

__all__ = [
    "ArraySource",
    "Challenge",
    "FileSource",
    "MASK_SUFFIXES",
    "MaskFormat",
    "MaskSource",
    "arrays",
    "case_table",
    "challenge",
    "dermavqa",
    "file_source",
    "folders",
    "from_arrays",
    "load_challenge",
    "load_dermavqa",
    "load_raters",
    "masks",
    "raters",
    "read_case_table",
    "read_mask",
    "read_shape",
    "tiff",
    "write_dermavqa",
]
