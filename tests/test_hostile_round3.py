"""Issue 48: the defects a new organiser and a third hostile round found (items 3-9, 11-13, 15).

One test (or a parametrised family) per item, each written to reproduce the defect first. Every refusal is one
line ``error: ...`` naming the file or option, exit status 2.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from experiments import rank_convergence
from experiments._cli import run
from robustness.errors import InputError
from robustness.io import load_raters
from tests.conftest import write_png

FAST = ["--orders", "3", "--bootstrap", "10", "--outer", "4", "--quiet"]


def one_line_error(capsys, code, *needles):
    err = capsys.readouterr().err.strip()
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert code == 2 and len(errors) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert re.search(needle, errors[0]), errors[0]
    return errors[0]


# -- item 3: a foreground value no mask holds ----------------------------------------------------------------------

@pytest.fixture
def cells_drawn_as_0(tmp_path):
    """A raters folder of 0/255 masks whose cells are drawn as 0 on a background of 255 (BU-BIL's scale)."""
    rng = np.random.default_rng(5)
    root = tmp_path / "cells"
    truth = rng.random((12, 16)) < 0.2
    for r in ("expertA", "expertB", "algo1", "algo2"):
        for k in range(3):
            cells = truth ^ (rng.random(truth.shape) < 0.03)
            write_png(root / r / f"img_{k}.png", np.where(cells, 0, 255).astype(np.uint8))
    return root


def test_a_foreground_value_no_mask_holds_is_refused(cells_drawn_as_0, tmp_path, capsys):
    with pytest.raises(InputError, match=r"expertA/img_0\.png.*no gold mask holds the foreground value 1"):
        load_raters(cells_drawn_as_0, gold=["expertA", "expertB"], foreground=1)
    out = tmp_path / "out"
    code = run(rank_convergence.main, ["--layout", "raters", "--data", str(cells_drawn_as_0), "--gold",
                                       "expertA,expertB", "--foreground", "1", "--out", str(out), *FAST,
                                       "--no-figures"])
    line = one_line_error(capsys, code, r"no gold mask holds the foreground value 1", r"each of the 2 gold raters holds only 0 and 255\)",
                          r"foreground 0 and background 255 if the objects are drawn as 0",
                          r"foreground 255 and background 0 if they are drawn as 255")
    assert "background 1" not in line
    assert not out.exists()
    # the values the files hold are read as given; a file of another scale among them is still read with a note
    ch = load_raters(cells_drawn_as_0, gold=["expertA", "expertB"], foreground=0, background=255)
    assert ch.annotator_masks(0)["expertA"].mean() < 0.5


def test_a_mixed_scale_folder_with_given_values_is_still_read(cells_drawn_as_0):
    # one gold rater on the 0/1 scale (DRIVE's second observer): the other holds the given values, so it is read
    for k in range(3):
        p = cells_drawn_as_0 / "expertA" / f"img_{k}.png"
        from PIL import Image

        raw = np.asarray(Image.open(p))
        write_png(p, (raw == 255).astype(np.uint8))
    ch = load_raters(cells_drawn_as_0, gold=["expertA", "expertB"], foreground=0, background=255)
    assert ch.annotators == ("expertA", "expertB")
