"""Resolution: the smallest true difference a test set of n units declares with 80% power (issue 49 item 3)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from robustness.statistics.population import delta_covariance
from robustness.statistics.resolution import (
    MAX_UNITS,
    detectable_difference,
    neighbour_pairs,
    pair_sds,
    resolution_table,
    resolve_table,
    units_for_difference,
)


@pytest.mark.parametrize("n", [2, 4, 12, 40])
def test_the_detectable_difference_has_the_stated_power_by_simulation(n):
    """scipy's paired t-test on normal differences of that size rejects in 80% of 40,000 simulated test sets."""
    rng = np.random.default_rng(n)
    sd = 0.07
    d = float(detectable_difference(sd, n))
    draws = rng.normal(d, sd, size=(40_000, n))
    p = stats.ttest_1samp(draws, 0.0, axis=1).pvalue
    power = float((p < 0.05).mean())
    assert abs(power - 0.8) < 4 * np.sqrt(0.8 * 0.2 / 40_000), (n, power)


def test_many_units_give_the_normal_formula_and_few_ask_for_more():
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    assert detectable_difference(1.0, 10**6) * 1000 == pytest.approx(z, rel=1e-4)
    assert detectable_difference(1.0, 10) > z / np.sqrt(10)
    # a stricter level (Holm's first step over 9 neighbours) asks for a larger difference
    assert detectable_difference(1.0, 50, alpha=0.05 / 9) > detectable_difference(1.0, 50)
    with pytest.raises(ValueError, match="at least 2 units"):
        detectable_difference(1.0, 1)
    with pytest.raises(ValueError, match="power must lie"):
        detectable_difference(1.0, 10, power=0.01)


@pytest.mark.parametrize("difference,sd", [(0.01, 0.05), (0.02, 0.2), (0.5, 0.1), (1e-4, 0.3)])
def test_units_for_a_difference_is_the_smallest_size_that_resolves_it(difference, sd):
    n = units_for_difference(difference, sd)
    if n == np.inf:  # beyond the largest size searched
        assert detectable_difference(sd, MAX_UNITS) > difference
        return
    assert detectable_difference(sd, n) <= difference
    if n > 2:
        assert detectable_difference(sd, n - 1) > difference
    assert units_for_difference(difference, sd, max_units=int(n) - 1) == np.inf if n > 2 else True
    assert np.isnan(units_for_difference(difference, np.nan))
    with pytest.raises(ValueError, match="positive number"):
        units_for_difference(0.0, sd)


def test_neighbours_are_the_leaderboards_adjacent_places():
    i, j = neighbour_pairs([0.2, 0.9, 0.5, np.nan, 0.7])
    assert list(zip(i.tolist(), j.tolist())) == [(1, 4), (4, 2), (2, 0)]


def test_pair_sds_are_the_delta_methods_standard_error_times_root_n():
    """The slow, obvious twin: the full delta-method covariance, var(d) = c_ii + c_jj - 2 c_ij, times n."""
    rng = np.random.default_rng(3)
    u, s, r = 17, 3, 5
    den = rng.integers(1, 50, size=(u, s, r)).astype(float)
    num = den * rng.uniform(0, 1, size=(u, s, r))
    i = np.array([[0, 1], [2, 3], [4, 0]])
    j = np.array([[1, 2], [3, 4], [0, 2]])
    got = pair_sds(num, den, i, j)[0]
    _, cov = delta_covariance(num, den)
    for k in range(s):
        for p in range(2):
            a, b = i[k, p], j[k, p]
            want = np.sqrt(u * (cov[k, a, a] + cov[k, b, b] - 2 * cov[k, a, b]))
            assert got[k, p] == pytest.approx(want, rel=1e-12)
    # weights are units repeated: drawing unit 0 three times is the same as listing it three times
    w = np.ones((1, u))
    w[0, 0] = 3
    repeated = np.concatenate([num[:1], num[:1], num], axis=0), np.concatenate([den[:1], den[:1], den], axis=0)
    np.testing.assert_allclose(pair_sds(num, den, i, j, w)[0], pair_sds(*repeated, i, j)[0], rtol=1e-12)


def test_a_macro_scheme_of_one_image_per_unit_uses_the_plain_sd_of_paired_differences():
    import pandas as pd

    from robustness.statistics.table_schemes import schemes_from_table

    rng = np.random.default_rng(5)
    values = {"a": rng.uniform(0.6, 0.9, 30), "b": rng.uniform(0.5, 0.9, 30), "c": rng.uniform(0.2, 0.5, 30)}
    table = pd.DataFrame([{"case": f"c{k}", "algorithm": run, "value": v[k]} for run, v in values.items()
                          for k in range(30)])
    sc = schemes_from_table(table)
    t = resolution_table(sc, sizes=[30, 120])
    means = {run: v.mean() for run, v in values.items()}
    order = sorted(means, key=means.get, reverse=True)
    sds = [np.std(values[x] - values[y], ddof=1) for x, y in zip(order, order[1:])]
    row = t[t.units == 30].iloc[0]
    assert row.pair_sd == pytest.approx(np.median(sds), rel=1e-10)
    assert row.pair_sd_q75 == pytest.approx(np.quantile(sds, 0.75), rel=1e-10)
    assert row.resolution == pytest.approx(float(detectable_difference(np.median(sds), 30)), rel=1e-12)
    assert row.pair_sd_low < row.pair_sd < row.pair_sd_high
    assert row.test_units == 30 and row.pairs == 2
    assert t[t.units == 120].resolution.iloc[0] < row.resolution
    need = resolve_table(t, 0.05)
    assert need.units_needed.iloc[0] == units_for_difference(0.05, row.pair_sd)
    assert need.units_needed_high.iloc[0] >= need.units_needed.iloc[0] >= need.units_needed_low.iloc[0]


def test_the_sds_interval_is_the_jackknife_on_the_log_scale_by_hand():
    """Leave each unit out, take the median neighbouring SD, and form exp(log m +- t se): by plain numpy."""
    import pandas as pd

    from robustness.statistics.table_schemes import schemes_from_table

    rng = np.random.default_rng(1)
    n = 12
    values = {"a": rng.uniform(0.6, 0.9, n), "b": rng.uniform(0.4, 0.8, n), "c": rng.uniform(0.1, 0.5, n)}
    table = pd.DataFrame([{"case": f"c{k}", "algorithm": r, "value": v[k]} for r, v in values.items()
                          for k in range(n)])
    row = resolution_table(schemes_from_table(table), sizes=[n]).iloc[0]
    order = sorted(values, key=lambda r: values[r].mean(), reverse=True)

    def median_sd(keep):
        return np.median([np.std(values[x][keep] - values[y][keep], ddof=1) for x, y in zip(order, order[1:])])

    whole = median_sd(np.ones(n, bool))
    loo = np.log([median_sd(np.arange(n) != u) for u in range(n)])
    se = np.sqrt((n - 1) / n * ((loo - loo.mean()) ** 2).sum())
    q = stats.t.ppf(0.975, n - 1)
    assert row.pair_sd == pytest.approx(whole, rel=1e-12)
    assert row.pair_sd_low == pytest.approx(np.exp(np.log(whole) - q * se), rel=1e-10)
    assert row.pair_sd_high == pytest.approx(np.exp(np.log(whole) + q * se), rel=1e-10)


@pytest.mark.slow
def test_the_detectable_difference_falls_with_n_at_every_level():
    """scipy's noncentral t returns nan in some far tails (a strict Holm level, a large noncentrality): the power is
    then integrated over the chi distribution; either way the detectable difference falls as units are added."""
    sizes = np.unique(np.round(np.geomspace(2, 20_000, 60)).astype(int))
    for alpha in (0.05, 0.05 / 39, 1e-5):
        d = detectable_difference(1.0, sizes, alpha=alpha)
        assert np.all(np.isfinite(d)) and np.all(np.diff(d) < 0), alpha
    rng = np.random.default_rng(11)
    alpha = 0.05 / 39
    d = float(detectable_difference(1.0, 200, alpha=alpha))
    p = stats.ttest_1samp(rng.normal(d, 1.0, size=(20_000, 200)), 0.0, axis=1).pvalue
    assert abs(float((p < alpha).mean()) - 0.8) < 4 * np.sqrt(0.16 / 20_000)


# -- the main job -----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def resolved(tmp_path_factory):
    """The main job on a small synthetic challenge with --resolve."""
    from experiments import rank_convergence as job
    from experiments._cli import run
    from robustness.synthetic.challenge import make_challenge
    from tests.conftest import write_png

    root = tmp_path_factory.mktemp("resolution")
    ch = make_challenge(n_encounters=30, n_images=30, max_images_per_encounter=1, n_annotators=3, min_annotators=3,
                        n_runs=6, n_teams=2, rng=3)
    for i in range(ch.n_images):
        for name, mask in ch.annotator_masks(i).items():
            write_png(root / "c" / name / f"case{i:02d}.png", np.where(mask, 255, 0).astype(np.uint8))
        for name in ch.runs:
            write_png(root / "c" / name / f"case{i:02d}.png", np.where(ch.run_mask(i, name), 255, 0).astype(np.uint8))
    out = root / "out"
    code = run(job.main, ["--data", str(root / "c"), "--layout", "raters", "--gold", "ann0,ann1,ann2", "--orders",
                          "5", "--bootstrap", "200", "--outer", "4", "--quiet", "--no-figures", "--resolve", "0.03",
                          "--out", str(out)])
    assert code == 0
    return out


@pytest.mark.slow
def test_the_main_job_states_one_size_answer_with_the_resolution(resolved):
    import json

    import pandas as pd

    from robustness.results.study_result import read_table

    table = read_table(resolved / "resolution.csv")
    meta = json.loads((resolved / "meta.json").read_text())
    n = meta["bootstrap_units"]
    head = table[(table.strategy == "majority") & (table.metric == "jaccard") & (table.average == "micro")]
    at_n = head[head.units == n].iloc[0]
    assert at_n.test_units == n and at_n.pairs == 5
    assert at_n.resolution_low <= at_n.resolution <= at_n.resolution_high
    assert at_n.resolution == pytest.approx(float(detectable_difference(at_n.pair_sd, n)))
    need = read_table(resolved / "resolve.csv")
    row = need[(need.strategy == "majority") & (need.average == "micro")].iloc[0]
    assert row.units_needed_high == units_for_difference(0.03, at_n.pair_sd_high)
    v = pd.read_csv(resolved / "verdicts.csv", keep_default_na=False)
    res = v[(v.claim == "resolution") & (v.strategy == "majority") & (v.average == "micro")].iloc[0]
    assert float(res.value) == pytest.approx(at_n.resolution)
    pairs = read_table(resolved / "pairwise.parquet")
    nb = pairs[(pairs.strategy == "majority") & (pairs.metric == "jaccard") & (pairs.average == "micro")
               & pairs.neighbours]
    assert int(res["count"]) == int((nb["diff"].abs() < at_n.resolution).sum()) and int(res["total"]) == 5
    summary = (resolved / "summary.md").read_text()
    conclude = summary.split("## What to conclude", 1)[1].split("\n## ", 1)[0]
    bullet = next(line for line in conclude.splitlines() if line.startswith("- **How many"))
    assert len(bullet.split()) <= 120, len(bullet.split())
    assert f"{at_n.resolution:.3g}" in bullet and "A difference of 0.03 needs about" in bullet
    assert "Checked on" not in conclude  # the calibration evidence once, in the statistics section
    assert summary.count("Checked on simulated populations of known truth") == 1


@pytest.mark.parametrize("value", ["0", "-0.1", "nan", "inf", "x"])
def test_a_bad_difference_is_refused_before_any_work(value, tmp_path, capsys):
    from experiments import rank_convergence as job
    from experiments._cli import run

    out = tmp_path / "out"
    assert run(job.main, ["--resolve", value, "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--resolve" in err[0]
    assert not out.exists()


def test_the_integrals_density_is_scipys_chi_square_to_the_bit():
    """The power's fallback integral evaluates scipy's chi-square density through its own formula, without the
    generic method's checks (20 times faster): equal bit for bit across degrees of freedom and the whole range the
    integral covers, so every resolution is the one computed through ``scipy.stats.chi2.pdf``."""
    from robustness.statistics import resolution

    rng = np.random.default_rng(3)
    checked = 0
    for df in [0.5, 1.0, 1.5, 2.0, 3.0, 7.0, 39.0, 199.0, 4095.0, *rng.uniform(0.2, 20_000, 40)]:
        low, high = stats.chi2.ppf([1e-15, 1 - 1e-15], df)
        for v in np.r_[rng.uniform(low, high, 40), np.geomspace(low, high, 20), df - 2.0 if df > 2 else df]:
            want = stats.chi2.pdf(float(v), float(df))
            got = resolution._chi2_pdf(float(v), float(df))
            assert got == want, (df, v, got, want)
            checked += 1
    assert checked == 49 * 61
