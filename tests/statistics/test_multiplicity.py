"""The one p-value adjustment (robustness.statistics.multiplicity.adjust) against naive twins, statsmodels and R.

The twins follow each method's definition, not the package's sorted running extrema: Holm and Hochberg as a max
or min over the steps, Hommel as closed testing over every subset with Simes' test (exhaustive, so small
families only), Benjamini-Hochberg and -Yekutieli as a min over the larger p-values.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustness.statistics.multiplicity import ADJUSTMENTS, R_ADJUSTMENTS, adjust
from tests.conftest import statsmodels_multipletests


def _sorted(p):
    return sorted(range(len(p)), key=lambda k: (p[k], k))


def twin(p, method):
    """Adjusted p-values from each method's definition, one p-value at a time."""
    m = len(p)
    order = _sorted(p)
    place = {k: i for i, k in enumerate(order)}  # 0-based step of each p-value
    out = []
    for k in range(m):
        i = place[k]
        if method == "none":
            v = p[k]
        elif method == "bonferroni":
            v = m * p[k]
        elif method == "sidak":
            v = 1 - (1 - p[k]) ** m
        elif method == "holm":
            v = max((m - j) * p[order[j]] for j in range(i + 1))
        elif method == "holm-sidak":
            v = max(1 - (1 - p[order[j]]) ** (m - j) for j in range(i + 1))
        elif method == "simes-hochberg":
            v = min((m - j) * p[order[j]] for j in range(i, m))
        elif method == "fdr_bh":
            v = min(m / (j + 1) * p[order[j]] for j in range(i, m))
        elif method == "fdr_by":
            c = sum(1 / (j + 1) for j in range(m))
            v = min(c * m / (j + 1) * p[order[j]] for j in range(i, m))
        elif method == "hommel":  # closed testing: the largest Simes p-value of any subset holding k
            v = 0.0
            others = [j for j in range(m) if j != k]
            for size in range(0, m):
                for rest in itertools.combinations(others, size):
                    subset = sorted([p[k]] + [p[j] for j in rest])
                    n = len(subset)
                    v = max(v, min(n * subset[j] / (j + 1) for j in range(n)))
        else:
            raise AssertionError(method)
        out.append(min(1.0, v))
    return np.array(out)


TWINNED = [m for m in ADJUSTMENTS if not m.startswith("fdr_ts")]

p_values = st.lists(st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.01, 0.05, 0.5, 1.0])), min_size=1,
                    max_size=7)


@settings(max_examples=80, deadline=None)
@given(p_values)
def test_every_method_equals_its_definition(p):
    for method in TWINNED:
        np.testing.assert_allclose(adjust(p, method), twin(p, method), rtol=1e-12, atol=1e-15, err_msg=method)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30), st.sampled_from([0.01, 0.05, 0.1]))
def test_every_method_equals_statsmodels(p, alpha):
    """Equal, except BH and BY: statsmodels divides by i / n where R multiplies by n / i (one ulp apart)."""
    for method in ADJUSTMENTS[1:]:
        with np.errstate(divide="ignore"), statsmodels_multipletests() as multipletests:  # its Sidak at p = 1
            want = multipletests(p, alpha=alpha, method=method)[1]
        got = adjust(p, method, alpha=alpha)
        if method in ("fdr_bh", "fdr_by"):
            np.testing.assert_allclose(got, want, rtol=4e-16, atol=0, err_msg=method)
        else:
            np.testing.assert_array_equal(got, want, err_msg=method)


def test_r_published_values():
    """``p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), method)`` for each of R's methods, worked by hand from R's
    documented formulas (Hommel's: Simes' test of the whole family, 5 x 0.01 / 1, decides every subset)."""
    p = [0.01, 0.02, 0.03, 0.04, 0.05]
    want = {"holm": [0.05, 0.08, 0.09, 0.09, 0.09], "bonferroni": [0.05, 0.1, 0.15, 0.2, 0.25],
            "simes-hochberg": [0.05] * 5, "hommel": [0.05] * 5, "fdr_bh": [0.05] * 5,
            "fdr_by": [0.05 * (1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5)] * 5}
    assert set(want) | {"none"} == set(R_ADJUSTMENTS)
    for method, values in want.items():
        np.testing.assert_allclose(adjust(p, method), values, rtol=1e-13, err_msg=method)


def test_nan_is_left_out_and_shapes_are_kept():
    p = np.array([[0.01, np.nan], [0.04, 0.03]])
    got = adjust(p, "holm")
    assert got.shape == (2, 2) and math.isnan(got[0, 1])
    np.testing.assert_allclose(got[~np.isnan(p)], adjust([0.01, 0.04, 0.03], "holm"))
    assert adjust([], "hommel").size == 0


def test_an_unknown_method_is_refused():
    with pytest.raises(ValueError, match="adjustment must be one of"):
        adjust([0.1], "BH")

