# The lazy names of robustness.io: lazy_loader reads this stub when the package is imported (its
# __getattr__ imports each name's module on first use), and static tools read it too: the one list of
# the package's public names. Edit it here; tests/test_conventions.py checks that every name resolves.

from . import arrays as arrays
from . import case_table as case_table
from . import challenge as challenge
from . import dermavqa as dermavqa
from . import file_source as file_source
from . import folders as folders
from . import masks as masks
from . import raters as raters
from . import tiff as tiff
from .arrays import ArraySource as ArraySource
from .arrays import from_arrays as from_arrays
from .case_table import read_case_table as read_case_table
from .challenge import Challenge as Challenge
from .challenge import MaskSource as MaskSource
from .dermavqa import load_challenge as load_challenge
from .dermavqa import load_dermavqa as load_dermavqa
from .dermavqa import write_dermavqa as write_dermavqa
from .file_source import FileSource as FileSource
from .masks import MASK_SUFFIXES as MASK_SUFFIXES
from .masks import MaskFormat as MaskFormat
from .masks import read_mask as read_mask
from .masks import read_shape as read_shape
from .raters import RaterOptions as RaterOptions
from .raters import load_raters as load_raters

__all__ = [
    "ArraySource",
    "Challenge",
    "FileSource",
    "MASK_SUFFIXES",
    "MaskFormat",
    "MaskSource",
    "RaterOptions",
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
