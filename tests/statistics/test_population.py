"""The distance to unlimited data: run groups, the delta method, the posterior, the conservative size claims."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from robustness.kernel_threads import threads_for_kernels
from robustness.overlap import compute_overlap
from robustness.statistics.count_schemes import schemes_from_counts
from robustness.statistics.population import delta_covariance, noisy_l1, run_groups, score_posterior
from robustness.statistics.uncertainty import ranking_uncertainty, units_needed
from robustness.statistics.uncertainty_options import UncertaintyOptions
from robustness.synthetic.challenge import make_challenge


@pytest.fixture(scope="module")
def schemes():
    ch = make_challenge(n_encounters=30, n_images=60, n_runs=8, n_teams=3, rng=2)
    return schemes_from_counts(compute_overlap(ch, rng=0), unit="encounter", metrics=["jaccard"],
                               strategies=["majority"], annotators=[])


def test_run_groups_from_names():
    labels, said = run_groups(["team1-run1", "team1-run2", "team2_a", "team2_b", "solo"])
    assert labels.tolist() == [0, 0, 1, 1, 2] and said == "3 groups of runs (from the run names)"
    assert run_groups(["a", "b", "c"])[1].startswith("no groups")  # no separator: every run alone
    assert run_groups(["x-1", "y-1"])[1].startswith("no groups")  # no group holds two runs
    assert run_groups(["team1-run1", "team1-run2"], "none")[0].tolist() == [0, 1]
    assert run_groups(["p", "q", "r"], {"p": "t", "q": "t"})[0].tolist() == [0, 0, 1]
    with pytest.raises(ValueError, match="rule must be"):
        run_groups(["a"], "teams")


def test_delta_covariance_is_the_linearisation_of_a_ratio_of_sums():
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0, 5, (50, 3)), rng.uniform(5, 10, (50, 3))
    scores, cov = delta_covariance(a, b)
    np.testing.assert_allclose(scores, a.sum(0) / b.sum(0))
    n = 50
    infl = (a - scores * b) / (b.sum(0) / n)  # the slow way: each unit's influence, then their covariance
    np.testing.assert_allclose(cov, np.cov(infl.T) / n)
    # a unit drawn twice counts twice
    w = np.ones(n)
    w[0] = 2.0
    s2, c2 = delta_covariance(np.r_[a, a[:1]], np.r_[b, b[:1]])
    s3, c3 = delta_covariance(a, b, w)
    np.testing.assert_allclose(s2, s3)
    np.testing.assert_allclose(c2, c3)


def test_delta_variance_matches_the_bootstrap_on_a_large_sample():
    rng = np.random.default_rng(1)
    n = 4000
    a = rng.gamma(2.0, 1.0, (n, 2))
    b = a + rng.gamma(2.0, 1.0, (n, 2))
    _, cov = delta_covariance(a, b)
    boot = []
    for _ in range(400):
        i = rng.integers(0, n, n)
        boot.append(a[i].sum(0) / b[i].sum(0))
    assert np.diag(cov) == pytest.approx(np.var(boot, axis=0, ddof=1), rel=0.2)


def test_resample_se_equals_the_delta_method_on_each_resample(schemes):
    rng = np.random.default_rng(3)
    idx = rng.integers(0, schemes.n_units, (3, schemes.n_units))
    se = schemes.resample_se(idx)  # (S, B, R)
    num, den = schemes.ratio_parts()
    for k in range(3):
        counts = np.bincount(idx[k], minlength=schemes.n_units).astype(float)
        _, cov = delta_covariance(num, den, counts)
        np.testing.assert_allclose(se[:, k], np.sqrt(np.diagonal(cov, axis1=-2, axis2=-1)), rtol=1e-10)


def test_posterior_of_a_one_level_prior_is_the_textbook_shrinkage():
    theta = np.array([0.1, 0.3, 0.5, 0.9])
    sigma = np.diag([0.01, 0.02, 0.01, 0.04])
    post = score_posterior(theta, sigma, np.arange(4))
    tau2 = post.tau_within**2
    # moments: total spread of the scores minus the noise's share
    centre = np.eye(4) - 0.25
    assert tau2 == pytest.approx((theta @ centre @ theta - np.trace(centre @ sigma)) / 3)
    mu = np.sum(theta / (np.diag(sigma) + tau2)) / np.sum(1 / (np.diag(sigma) + tau2))
    shrink = tau2 / (tau2 + np.diag(sigma))
    np.testing.assert_allclose(post.mean, mu + shrink * (theta - mu))
    np.testing.assert_allclose(np.diag(post.covariance), shrink * np.diag(sigma))
    assert post.tau_group == 0.0


def test_groups_pull_their_runs_together():
    theta = np.array([0.50, 0.52, 0.70, 0.72])
    sigma = np.eye(4) * 0.02**2
    grouped = score_posterior(theta, sigma, np.array([0, 0, 1, 1]))
    alone = score_posterior(theta, sigma, np.arange(4))
    gap = lambda p: abs(p.mean[1] - p.mean[0])  # noqa: E731
    assert gap(grouped) < gap(alone) < 0.02  # a group's runs shrink towards each other more than towards all
    assert grouped.tau_group > grouped.tau_within


def test_known_prior_takes_each_group_its_own_spread():
    theta = np.array([0.50, 0.53, 0.56, 0.70, 0.73, 0.76])
    sigma = np.eye(6) * 0.02**2
    groups = np.array([0, 0, 0, 1, 1, 1])
    known = np.array([0.530, 0.531, 0.532, 0.68, 0.73, 0.78])  # group 0 tight in the population, group 1 spread
    post = score_posterior(theta, sigma, groups, known=known)
    # the conjugate normal posterior under the prior those scores give, by hand
    tau_w2 = np.repeat([np.var(known[:3], ddof=1), np.var(known[3:], ddof=1)], 3)
    tau_g2 = np.var([known[:3].mean(), known[3:].mean()], ddof=1)
    prior = tau_g2 * (groups[:, None] == groups[None, :]) + np.diag(tau_w2)
    v = np.linalg.inv(sigma + prior)
    mu = v.sum(axis=0) @ theta / v.sum()
    cov = np.linalg.inv(np.linalg.inv(sigma) + np.linalg.inv(prior))
    np.testing.assert_allclose(post.covariance, cov, rtol=1e-7)  # (the noise gets a floor of 1e-12)
    expected = cov @ (np.linalg.solve(sigma, theta) + np.linalg.solve(prior, np.full(6, mu)))
    np.testing.assert_allclose(post.mean, expected, rtol=1e-7)
    spread = lambda p, g: np.ptp(p.mean[groups == g])  # noqa: E731
    assert spread(post, 0) < 0.002 < 0.05 < spread(post, 1)  # the tight group pulled together, the other not
    assert post.tau_group == pytest.approx(np.sqrt(tau_g2))
    # without groups the prior is one level of the known scores' spread
    alone = score_posterior(theta, sigma, np.arange(6), known=known)
    assert alone.tau_group == 0 and alone.tau_within == pytest.approx(np.std(known, ddof=1))


def test_expected_l1_alone_is_the_estimate_of_ranking_uncertainty(schemes):
    from robustness.parallel import batch_generators
    from robustness.statistics.uncertainty import expected_l1, ranking_uncertainty

    sizes = np.array([15, 30, 240])
    per_size, _ = ranking_uncertainty(schemes, sizes=sizes, n_resamples=0, rng=7)
    main = batch_generators(7, 3)[0]  # the estimate's stream in ranking_uncertainty
    alone = expected_l1(schemes, sizes, rng=main)
    for s, (strategy, metric, average) in enumerate(schemes.names):
        want = per_size[(per_size.strategy == strategy) & (per_size.average == average)].sort_values("m")
        np.testing.assert_allclose(alone[s], want.expected_l1, rtol=1e-12)
    # the population's own scores as the prior: a different estimate, of the same kind
    known = expected_l1(schemes, sizes, known=schemes.scores(), rng=1)
    assert known.shape == alone.shape and np.all(np.diff(known, axis=1) < 0)


def test_noisy_l1_is_zero_without_noise_and_grows_with_it():
    draws = np.array([[0.9, 0.7, 0.5, 0.3]])
    noise = np.random.default_rng(0).standard_normal((500, 4))
    assert noisy_l1(draws, noise, 0.0).sum() == 0
    small, large = noisy_l1(draws, noise, 0.05).mean(), noisy_l1(draws, noise, 0.5).mean()
    assert 0 < small < large


def test_the_estimate_beats_the_plugin_where_runs_are_close():
    """Two teams of near-identical runs: the plug-in, which takes the observed gaps for the truth, sees fewer
    swaps than a new test set makes; the estimate sees more (the truth is checked by experiments.calibration)."""
    rng = np.random.default_rng(5)
    n_units, true = 80, np.repeat([0.5, 0.56], 4) + rng.normal(0, 0.002, 8)
    values = true[None, :] + rng.normal(0, 0.08, (n_units, 8))
    import pandas as pd

    from robustness.statistics.table_schemes import schemes_from_table

    table = pd.DataFrame([{"case": f"c{u}", "algorithm": f"team{1 + r // 4}-run{r % 4}", "value": values[u, r]}
                          for u in range(n_units) for r in range(8)])
    sc = schemes_from_table(table)
    per_size, per_run = ranking_uncertainty(sc, n_resamples=30, rng=0)
    at = per_size.set_index("m").loc[n_units]
    assert at.expected_l1 > at.plugin_l1
    assert at.low <= at.expected_l1 <= at.high and at.groups == "2 groups of runs (from the run names)"
    # the size claim's curve: the two priors' estimates averaged
    assert np.allclose(per_size.expected_l1_both, (per_size.expected_l1 + per_size.expected_l1_per_team) / 2)
    assert per_run.p_best.sum() == pytest.approx(1.0)


def test_size_claims_are_one_sided_bounds():
    import pandas as pd

    per_size = pd.DataFrame({"strategy": "s", "metric": "m", "average": "micro", "m": [10, 20, 40, 80],
                             "n_images": [10, 20, 40, 80], "expected_l1": [40.0, 30.0, 20.0, 10.0],
                             "expected_l1_se": [5.0, 5.0, 5.0, 5.0]})
    z = 1.6448536269514722  # the 95% one-sided quantile
    got = units_needed(per_size, tolerance=25.0).iloc[0]
    assert got.units_needed_point == pytest.approx(np.exp(np.log(20) + 0.5 * np.log(2)))  # halfway in log m
    t = (20 + z * 5 - 25) / 10
    assert got.units_needed == pytest.approx(np.exp(np.log(40) + t * np.log(2)))
    assert got.units_needed > got.units_needed_point > got.units_needed_low
    assert not got.beyond and got.confidence == 0.95
    assert units_needed(per_size, tolerance=1.0).iloc[0].beyond


def test_size_claims_read_the_two_priors_average_and_state_the_shared_one_beside():
    """The claim is the bound of ``expected_l1_both`` (the estimate where it is nan); ``units_needed_shared`` is the
    shared prior's estimate's bound, worked out by hand here."""
    import pandas as pd

    per_size = pd.DataFrame({"strategy": "s", "metric": "m", "average": "micro", "m": [10, 20, 40, 80],
                             "n_images": [10, 20, 40, 80], "expected_l1": [40.0, 30.0, 20.0, 10.0],
                             "expected_l1_both": [np.nan, 40.0, 30.0, 20.0], "expected_l1_se": [5.0, 5.0, 5.0, 5.0]})
    z = 1.6448536269514722
    got = units_needed(per_size, tolerance=30.0).iloc[0]
    t = (30 + z * 5 - 30) / 10  # the average's bound: 38.2 at 40 units, 28.2 at 80
    assert got.units_needed == pytest.approx(np.exp(np.log(40) + t * np.log(2)))
    assert got.units_needed_point == pytest.approx(40.0)  # the average itself reaches 30 at 40 units
    t = (40 - z * 5 - 30) / 10  # the lower bound: 31.8 at 20 units (the estimate's 40 at 10 stands in for nan)
    assert got.units_needed_low == pytest.approx(np.exp(np.log(20) + t * np.log(2)))
    t = (30 + z * 5 - 30) / 10  # the shared prior's bound: 38.2 at 20 units, 28.2 at 40
    assert got.units_needed_shared == pytest.approx(np.exp(np.log(20) + t * np.log(2))) and not got.beyond_shared
    assert units_needed(per_size.drop(columns="expected_l1_both"), tolerance=30.0).iloc[0].units_needed == \
        pytest.approx(got.units_needed_shared)  # without the column (older folders): the estimate's bound


def test_a_claim_beyond_the_search_holds_but_is_not_a_finite_claim_that_does():
    """calibration.csv's ``share_reaching_target`` counts a claim "more than the largest size" as holding;
    ``share_reaching_finite`` counts only finite claims that reach the target (here 2 of 3 against 1 of 3)."""
    from robustness.simulation.calibration_summary import _needed_rows

    rows: list[dict] = []
    claim = {"scheme": 0, "true_need": 40.0, "largest": 800.0}
    needed = [{**claim, "claim": 50.0, "beyond": False, "truth_at_claim": 30.0},  # finite, reaches L1 <= 40
              {**claim, "claim": 800.0, "beyond": True, "truth_at_claim": 10.0},  # "more than 800"
              {**claim, "claim": 20.0, "beyond": False, "truth_at_claim": 60.0}]  # finite, falls short
    _needed_rows(lambda name, setting, s, **v: rows.append({"estimator": name, **v}), 0, [{"needed": needed}],
                 40, 0.95)
    (got,) = rows
    assert got["estimator"] == "units_needed" and got["share_beyond"] == pytest.approx(1 / 3)
    assert got["share_reaching_target"] == pytest.approx(2 / 3) and got["share_reaching_finite"] == pytest.approx(1 / 3)


def test_studentized_interval_equals_a_slow_loop(schemes):
    from robustness.statistics.bootstrap import bootstrap

    boot = bootstrap(schemes, n_resamples=200, rng=4)
    ci = boot.intervals(method="studentized", confidence=0.9)
    assert set(ci.method) == {"studentized"}
    num, den = schemes.ratio_parts()
    s, r = 0, 3  # one scheme and run, the slow way
    est, cov = delta_covariance(num, den)
    t = []
    for b in range(boot.distribution.shape[1]):
        t.append((boot.distribution[s, b, r] - est[s, r]) / boot.standard_errors[s, b, r])
    se = np.sqrt(cov[s, r, r])
    q_lo, q_hi = np.quantile(t, [0.05, 0.95])
    row = ci[(ci.strategy == schemes.names[s][0]) & (ci.average == schemes.names[s][2])].iloc[r]
    assert row.low == pytest.approx(est[s, r] - q_hi * se) and row.high == pytest.approx(est[s, r] - q_lo * se)


def test_pairwise_delta_test_equals_a_hand_computation(schemes):
    from scipy.stats import t as student

    from robustness.statistics.bootstrap import bootstrap
    from robustness.statistics.comparisons import pairwise_comparisons

    pairs = pairwise_comparisons(bootstrap(schemes, n_resamples=50, rng=0))
    row = pairs.iloc[5]
    s = [k for k, n in enumerate(schemes.names) if n[0] == row.strategy and n[2] == row.average][0]
    i, j = schemes.runs.index(row.run), schemes.runs.index(row.other)
    est, cov = delta_covariance(*schemes.ratio_parts())
    z = (est[s, i] - est[s, j]) / np.sqrt(cov[s, i, i] + cov[s, j, j] - 2 * cov[s, i, j])
    assert row.p_delta == pytest.approx(2 * student.sf(abs(z), schemes.n_units - 1))
    sub = pairs[(pairs.strategy == row.strategy) & (pairs.average == row.average)]
    assert (sub.p_delta_holm >= sub.p_delta).all()
    assert sub.p_delta_holm_neighbours.notna().sum() == sub.neighbours.sum() == len(schemes.runs) - 1


def test_auc_over_test_sets_is_reproducible_and_paired():
    from robustness.statistics.convergence import auc_over_test_sets, compare_over_test_sets, rank_convergence

    ch = make_challenge(n_encounters=20, n_images=40, n_runs=6, n_teams=2, rng=3)
    schemes = schemes_from_counts(compute_overlap(ch, rng=0), unit="image", metrics=["jaccard"],
                                  strategies=["majority", "union"], annotators=[])
    clusters = np.repeat(np.arange(schemes.n_units // 3 + 1), 3)[:schemes.n_units]
    auc = auc_over_test_sets(schemes, clusters=clusters, n_resamples=12, n_orders=4, rng=0)
    assert auc.shape == (len(schemes.names), 12) and np.isfinite(auc).all()
    again = auc_over_test_sets(schemes, clusters=clusters, n_resamples=12, n_orders=4, n_jobs=2, rng=0)
    np.testing.assert_array_equal(auc, again)  # the same numbers for any n_jobs
    own = rank_convergence(schemes, n_orders=50, rng=1).order_auc().mean(axis=1)
    assert np.all(np.abs(auc.mean(axis=1) - own) < 0.5 * own + 2)  # the same scale as this test set's curves
    table = compare_over_test_sets(auc, schemes.names)
    row = table.iloc[0]
    a, b = schemes.names.index((row.strategy_a, row.metric, row.average)), \
        schemes.names.index((row.strategy_b, row.metric, row.average))
    assert row.auc_diff_test_sets == pytest.approx((auc[a] - auc[b]).mean())
    assert row.auc_diff_test_sets_low <= row.auc_diff_test_sets <= row.auc_diff_test_sets_high


def test_rows_averaged_over_design_populations():
    from robustness.simulation.calibration_summary import CALIBRATION_COLUMNS
    from robustness.simulation.calibration_summary import averaged as _averaged

    def row(population, bias, coverage, n):
        r = dict.fromkeys(CALIBRATION_COLUMNS, np.nan)
        r.update(estimator="expected_l1", setting="m = 1 N", scheme="majority jaccard micro", population=population,
                 n_test_sets=n, relative_bias=bias, relative_bias_se=0.01, coverage=coverage, nominal=0.95)
        return r

    rows = [row("default", 0.5, 0.1, 9), row("design-0", -0.02, 0.9, 10), row("design-1", 0.04, 0.96, 10),
            row("design-2", 0.07, 0.93, 10)]
    (avg,) = _averaged(rows, ["design-0", "design-1", "design-2"])
    assert avg["population"] == "design (3 populations)" and avg["n_test_sets"] == 30  # the default left out
    assert avg["relative_bias"] == pytest.approx(0.03)
    assert avg["relative_bias_se"] == pytest.approx(np.std([-0.02, 0.04, 0.07], ddof=1) / np.sqrt(3))
    assert avg["coverage"] == pytest.approx(0.93) and avg["nominal"] == 0.95
    assert _averaged(rows, ["design-0"]) == []  # one population is not averaged
    # a size claim's median over the need: averaged with its SE over the populations, as the target judges it
    claims = [r | {"estimator": "units_needed", "claim_to_need": ratio} for r, ratio in zip(rows, (9.0, 1.2, 2.0, 3.1))]
    (claim,) = _averaged(claims, ["design-0", "design-1", "design-2"])
    assert claim["claim_to_need"] == pytest.approx(2.1)
    assert claim["claim_to_need_se"] == pytest.approx(np.std([1.2, 2.0, 3.1], ddof=1) / np.sqrt(3))
    # nor a row that only one of the populations has
    only = dict(row("design-1", 0.1, 0.9, 10), estimator="p_best_reliability", setting="claimed p_best in [0.95, 1]")
    assert [r["estimator"] for r in _averaged(rows + [only], ["design-0", "design-1", "design-2"])] == ["expected_l1"]


@pytest.mark.slow
def test_calibration_command_scores_its_claims(tmp_path, capsys):
    from experiments import calibration
    from experiments._cli import run

    out = tmp_path / "cal"
    args = ["--quick", "--population", "240", "--test-sets", "3", "--test-size", "20", "--outer", "4",
            "--bootstrap", "20", "--truth-draws", "20", "--out", str(out), "--quiet", "--no-held-out"]
    assert run(calibration.main, args) == 0
    import pandas as pd

    table = pd.read_csv(out / "calibration.csv")
    assert {"expected_l1", "expected_l1_plugin", "units_needed", "score_interval_studentized",
            "pairs_differ_delta", "p_best"} <= set(table.estimator)
    assert (table.n_test_sets == 3).all() and set(table.population) == {"default"}
    row = table[(table.estimator == "expected_l1") & table.setting.str.startswith("m = 1 N")].iloc[0]
    assert 0 <= row.coverage <= 1 and row.nominal == 0.95
    raw = pd.read_csv(out / "calibration_distances.csv")
    assert len(raw) == 3 * 2 * 2  # test sets x schemes x (N, 8N)
    first = raw[(raw.m == 20) & (raw.scheme == "majority jaccard micro")]
    assert row.relative_bias == pytest.approx((first.estimate / first.truth - 1).mean())
    assert np.allclose(raw.se, np.hypot(raw.posterior_se, raw.sampling_se))  # the interval's two parts
    known = table[(table.estimator == "expected_l1_known_prior") & table.setting.str.startswith("m = 1 N")].iloc[0]
    assert known.relative_bias == pytest.approx((first.known_prior / first.truth - 1).mean())
    # the band's upper end: the share of test sets whose truth lies above it; the flag's two shares; claim / need
    upper = table[(table.estimator == "expected_l1_upper") & table.setting.str.startswith("m = 1 N")
                  & (table.scheme == "majority jaccard micro")].iloc[0]
    assert upper.share_wrong == pytest.approx((first.truth > first.band_high).mean())
    assert (first.band_high >= first.high).all() and (first.band_low <= first.low).all()
    # the flag judged per population: one row per scheme, differ or silent as the population's own scores say
    flags = table[table.estimator.isin(["prior_flag_differ", "prior_flag_silent"])]
    assert len(flags) == 2 and (flags.n_claims == 3).all()  # every test set, once
    fired = raw[raw.m == 20].groupby("scheme").spread_p.apply(lambda p: (p < 0.05).mean())
    assert np.allclose(flags.set_index("scheme").share_holding.sort_index(), fired.sort_index())
    assert ((flags.truth < 0.05) == (flags.estimator == "prior_flag_differ")).all()
    assert not table.estimator.str.startswith("p_best_pooled").any()  # one population: nothing pooled
    needed = table[table.estimator == "units_needed"]
    assert np.allclose(needed.claim_to_need.dropna(), needed.relative_bias.dropna() + 1)
    # the share reached by a finite claim, from the claims file: "beyond" claims left out
    claims = pd.read_csv(out / "calibration_claims.csv")
    finite = claims[claims.rule == "reported"].assign(f=lambda c: c.holds & ~c.beyond).groupby("scheme").f.mean()
    assert np.allclose(needed.set_index("scheme").share_reaching_finite.sort_index(), finite.sort_index())
    assert (needed.share_reaching_finite <= needed.share_reaching_target).all()
    assert "units_needed_shared" in set(table.estimator)  # the shared prior's claim, scored beside
    # the rules measured beside it: the band's upper end lies above its midpoint and above the one-sided bound
    claim = table[table.estimator.str.startswith("units_needed")].pivot(index="scheme", columns="estimator",
                                                                        values="estimate")
    assert (claim.units_needed_band_high >= claim.units_needed_band_mid).all()
    assert (claim.units_needed_band_high >= claim.units_needed).all()
    reliability = table[table.estimator == "p_best_reliability"]  # every test set in one bin of claimed p_best
    assert (reliability.groupby("scheme").n_claims.sum() == 3).all()
    assert reliability.estimate.between(0, 1).all() and reliability.share_holding.between(0, 1).all()
    truth = pd.read_csv(out / "calibration_truth.csv")
    assert (truth.groupby(["strategy", "average"]).expected_l1.apply(lambda e: e.iloc[0] > e.iloc[-1])).all()
    report = (out / "summary.md").read_text()
    assert "checks meet their target" in report and (out / "verdicts.csv").is_file()
    # refused before any work: a test set as large as its population
    assert run(calibration.main, ["--population", "300", "--test-size", "300", "--out", str(tmp_path / "x")]) == 2
    assert "must be smaller than the population" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_a_population_like_a_challenge_is_its_fitted_twin(monkeypatch):
    """The calibration study's ``like`` population: the design study's twin of the challenge (the fit itself is
    tested in test_design), its runs drawn from the study's ``population`` stream, and the main job's checks on the
    input among its warnings."""
    from dataclasses import replace

    from robustness.seeds import stream
    from robustness.studies import calibration
    from robustness.synthetic.challenge import SyntheticConfig, draw_population, make_challenge

    challenge = make_challenge(rng=5, n_encounters=12, n_images=20, n_runs=4, n_teams=2)
    challenge = replace(challenge, notes=("a note of the loader",))
    twin = SyntheticConfig(n_encounters=30, n_images=40, n_runs=6, n_teams=3)
    fitted: list = []
    monkeypatch.setattr(calibration, "base_from_challenge",
                        lambda ch, options, counts: fitted.append((ch, options, counts)) or (twin, None))
    said: list = []
    warned: list = []
    spec, notes = calibration.like_population(challenge, seed=7, quick=True, say=said.append, warn=warned.extend)
    (ch, options, counts), = fitted
    assert ch is challenge and options.quick and tuple(counts.strategies) == ("majority",)
    drawn = draw_population(twin, stream(7, "population", 0, design=True))
    assert spec.name == "like" and spec.config == twin
    assert spec.runs.runs == drawn.runs and np.array_equal(spec.runs.run_skill, drawn.run_skill)
    assert notes[0] == "a note of the loader" and set(warned) <= set(notes)
    assert said == ["fitting a twin made of its own images to the challenge (20 images, 4 runs)"]


def _per_team_by_hand(theta, sigma, groups, low=None):
    """The per-team prior's posterior the slow way: each team of two or more runs its own moment estimate of the
    within-team variance, singletons the shared one, the between-team variance as in the shared prior; with
    ``low`` each team's at its one-sided lower confidence limit at that level (scipy.stats.chi2)."""
    from scipy.stats import chi2

    sigma = (sigma + sigma.T) / 2 + np.eye(theta.size) * 1e-12
    ss = noise = 0.0
    df = 0
    own = {}
    for g in np.unique(groups):
        idx = np.flatnonzero(groups == g)
        if idx.size < 2:
            continue
        c = np.eye(idx.size) - 1.0 / idx.size
        d = c @ theta[idx]
        t = float(np.trace(c @ sigma[np.ix_(idx, idx)]))
        ss, noise, df = ss + d @ d, noise + t, df + idx.size - 1
        own[g] = max((d @ d - t) / (idx.size - 1), 1e-12)
        if low is not None:  # S_t / (tau^2 + noise_t / (n_t - 1)) is chi2 with n_t - 1 degrees of freedom
            own[g] = max(d @ d / chi2.ppf(low, idx.size - 1) - t / (idx.size - 1), 1e-12)
    c = np.eye(theta.size) - 1.0 / theta.size
    total = (theta @ c @ theta - np.trace(c @ sigma)) / (theta.size - 1)
    w2 = max((ss - noise) / df, 1e-12)
    g2 = max(total - w2, 1e-12)
    tau_w2 = np.array([own.get(g, w2) for g in groups])
    prior = g2 * (groups[:, None] == groups[None, :]) + np.diag(tau_w2)
    v = np.linalg.inv(sigma + prior)
    mu = v.sum(axis=0) @ theta / v.sum()
    cov = np.linalg.inv(np.linalg.inv(sigma) + np.linalg.inv(prior))
    mean = cov @ (np.linalg.solve(sigma, theta) + np.linalg.solve(prior, np.full(theta.size, mu)))
    return mean, cov, tau_w2


def test_per_team_prior_gives_each_team_its_own_spread():
    theta = np.array([0.500, 0.502, 0.504, 0.62, 0.70, 0.78, 0.60])  # team 0 tight, team 1 loose, one run alone
    sigma = np.eye(7) * 0.02**2 + 0.0001
    groups = np.array([0, 0, 0, 1, 1, 1, 2])
    post = score_posterior(theta, sigma, groups, prior="per_team")
    mean, cov, tau_w2 = _per_team_by_hand(theta, sigma, groups)
    np.testing.assert_allclose(post.covariance, cov, rtol=1e-7)
    np.testing.assert_allclose(post.mean, mean, rtol=1e-7)  # a prior variance of 1e-12: ill-conditioned inverses
    assert tau_w2[0] == 1e-12 and tau_w2[3] > 1e-3  # the tight team's spread is all noise, the loose one's is not
    assert post.tau_within == pytest.approx(np.sqrt(tau_w2.mean()))
    shared = score_posterior(theta, sigma, groups)
    spread = lambda p, g: np.ptp(p.mean[groups == g])  # noqa: E731
    assert spread(post, 0) < spread(shared, 0) and spread(post, 1) > spread(shared, 1)
    # without a team of two or more runs the two priors are one: the one-level prior
    for alone in (np.arange(7), np.array([0, 1, 2, 3, 4, 5, 6])):
        a, b = score_posterior(theta, sigma, alone), score_posterior(theta, sigma, alone, prior="per_team")
        assert np.array_equal(a.mean, b.mean) and np.array_equal(a.covariance, b.covariance)
    # the lower-limit prior: each team's variance at its 97.5% one-sided lower limit, no larger than its own
    from robustness.statistics.population import LOW_LEVEL

    low = score_posterior(theta, sigma, groups, prior="per_team_low")
    mean, cov, tau_low = _per_team_by_hand(theta, sigma, groups, low=LOW_LEVEL)
    np.testing.assert_allclose(low.covariance, cov, rtol=1e-7)
    np.testing.assert_allclose(low.mean, mean, rtol=1e-7)
    assert (tau_low <= tau_w2).all() and tau_low[3] < 0.5 * tau_w2[3]  # two degrees of freedom: a low limit far down
    with pytest.raises(ValueError, match="prior must be one of shared, per_team"):
        score_posterior(theta, sigma, groups, prior="hierarchical")


def test_the_band_spans_both_priors_widened_by_the_sampling_se(schemes):
    from robustness.parallel import batch_generators
    from robustness.statistics.uncertainty import _distances, _Question

    sizes = np.array([15, 30, 240])
    per_size, _ = ranking_uncertainty(schemes, sizes=sizes, n_resamples=20, rng=7)
    assert (per_size.band_other == "per_team").all()  # make_challenge names runs by team
    est, other = per_size.expected_l1.to_numpy(), per_size.expected_l1_per_team.to_numpy()
    z = 1.959963984540054  # the interval's (95% by default)
    se = per_size.sampling_se.to_numpy()
    low_prior = per_size.expected_l1_per_team_low.to_numpy()
    # down to the per-team estimate, up to the lower-limit prior's, each widened by z sampling SEs
    np.testing.assert_allclose(per_size.band_low, np.maximum(np.minimum(per_size.low, other - z * se), 0))
    np.testing.assert_allclose(per_size.band_high, np.maximum(per_size.high, low_prior + z * se))
    assert (per_size.band_low <= per_size.low).all() and (per_size.band_high >= per_size.high).all()
    np.testing.assert_allclose(per_size.prior_gap, (other - est) / est)
    # the per-team end is the estimate under that prior, on the band's own stream (the last one spawned)
    labels, _ = run_groups(schemes.runs)
    band_stream = batch_generators(7, 4 + 2)[-1]  # 20 resamples: two batches of ten
    g_team, g_low = band_stream.spawn(2)
    question = _Question(labels, sizes, 0.0)
    want = _distances(schemes.ratio_parts(), None, question, (200, 50), g_team, full=False, prior="per_team")[0]
    want_low = _distances(schemes.ratio_parts(), None, question, (200, 50), g_low, full=False,
                          prior="per_team_low")[0]
    for s, (strategy, metric, average) in enumerate(schemes.names):
        got = per_size[(per_size.strategy == strategy) & (per_size.average == average)].sort_values("m")
        np.testing.assert_array_equal(got.expected_l1_per_team, want[s])
        np.testing.assert_array_equal(got.expected_l1_per_team_low, want_low[s])
    # without an outer bootstrap there is no sampling SE and no band; without teams the other end is the plug-in
    bare, _ = ranking_uncertainty(schemes, sizes=sizes, n_resamples=0, rng=7)
    assert bare.band_low.isna().all() and bare.band_high.isna().all()
    alone, _ = ranking_uncertainty(schemes, sizes=sizes, n_resamples=20, options=UncertaintyOptions(groups="none"),
                                   rng=7)
    with pytest.warns(DeprecationWarning, match=r"ranking_uncertainty\(\): groups= is deprecated; pass options="):
        again, _ = ranking_uncertainty(schemes, sizes=sizes, n_resamples=20, groups="none", rng=7)
    pd.testing.assert_frame_equal(again, alone)
    assert (alone.band_other == "plugin").all() and alone.expected_l1_per_team.isna().all()
    np.testing.assert_allclose(alone.prior_gap, (alone.plugin_l1 - alone.expected_l1) / alone.expected_l1)
    assert (alone.band_low <= alone.plugin_l1 + 1e-12).all() and (alone.band_high >= alone.expected_l1).all()


def test_p_best_pooled_by_hand():
    from robustness.simulation.calibration_summary import pooled_reliability

    # two populations' best runs: claims in three bins, each prior's claim beside the reported one
    best = [{"scheme": "majority jaccard micro", "p_best": p, "p_best_shared": min(1.0, p + 0.1),
             "p_best_per_team": p / 2, "is_best": b}
            for p, b in ((0.1, 0), (0.3, 1), (0.6, 1), (0.7, 0), (0.9, 1), (0.85, 1), (1.0, 1), (0.45, 0))]
    assert pooled_reliability(best, 1, test_sets=4) == []
    rows = pd.DataFrame(pooled_reliability(best, 2, test_sets=4))
    got = rows[rows.estimator == "p_best_pooled"].set_index("setting")
    assert list(got.index) == ["claimed p_best in [0, 0.5)", "claimed p_best in [0.5, 0.8)",
                               "claimed p_best in [0.8, 1]"]
    assert got.n_claims.tolist() == [3, 2, 3] and got.estimate.tolist() == pytest.approx([0.85 / 3, 0.65, 2.75 / 3])
    assert got.share_holding.tolist() == pytest.approx([1 / 3, 0.5, 1.0])
    assert got.relative_bias.tolist() == pytest.approx([0.85 / 3 - 1 / 3, 0.15, 2.75 / 3 - 1])
    shared = rows[rows.estimator == "p_best_pooled_shared"]
    assert shared.n_claims.sum() == 8 and set(rows.population) == {"pooled (2 populations)"}
    team = rows[rows.estimator == "p_best_pooled_per_team"]  # every per-team claim is below 0.5 but one (0.5)
    assert team.n_claims.tolist() == [7, 1]


def test_held_out_populations_have_a_tight_team_and_few_runs_alone():
    from robustness.simulation.populations import held_out_populations

    tight, few, mixed = held_out_populations()
    assert (tight.name, few.name, mixed.name) == ("tight", "few", "mixed")
    assert len({tight.index, few.index, mixed.index}) == 3
    # mixed: 16 runs in two teams whose spreads in skill lie ten times apart
    teams = np.asarray(mixed.runs.team_of)
    assert len(mixed.runs.runs) == 16 and np.unique(teams).size == 2 and np.unique(teams, return_counts=True)[1].min() >= 4
    sd = sorted(np.std(mixed.runs.run_skill[teams == t]) for t in np.unique(teams))
    assert sd[1] / sd[0] == pytest.approx(10, rel=0.05)
    teams = np.asarray(tight.runs.team_of)
    spread = {t: np.std(tight.runs.run_skill[teams == t]) for t in set(teams) if (teams == t).sum() > 1}
    tightest = min(spread, key=spread.get)
    assert spread[tightest] < 0.2 * min(v for t, v in spread.items() if t != tightest)
    assert len(few.runs.runs) == 6 and run_groups(few.runs.runs)[1].startswith("no groups")


def _shared_spread_scores(rng, groups, sigma, within=(0.01,)):
    """Scores of runs drawn from the two-level prior (each team its own within-team SD) plus the test set's noise."""
    n_teams = groups.max() + 1
    sd = np.resize(np.asarray(within, dtype=float), n_teams)[groups]
    theta = 0.6 + rng.normal(0, 0.03, n_teams)[groups] + rng.normal(0, 1, groups.size) * sd
    return theta + np.linalg.cholesky(sigma) @ rng.standard_normal(groups.size)


def test_the_spread_test_by_hand():
    from robustness.statistics.population import spread_test

    # three teams of 2, 3 and 2 runs, independent noise of variance v: S_t and noise_t by hand
    groups = np.array([0, 0, 1, 1, 1, 2, 2])
    theta = np.array([0.50, 0.54, 0.60, 0.61, 0.65, 0.70, 0.71])
    v = 1e-4
    sigma = np.eye(7) * v
    teams = [theta[:2], theta[2:5], theta[5:]]
    ss = np.array([((t - t.mean()) ** 2).sum() for t in teams])
    df = np.array([1.0, 2.0, 1.0])
    noise = df * (v + 1e-12)  # tr of the centring matrix times v (plus the floor score_posterior adds)
    w2 = (ss.sum() - noise.sum()) / df.sum()
    r = ss / (df * w2 + noise)
    statistic, p = spread_test(theta, sigma, groups, rng=0)
    assert statistic == pytest.approx(float((df * (r - 1 - np.log(r))).sum()), rel=1e-12)
    assert 0 < p <= 1 and (p * 401) == pytest.approx(round(p * 401))  # (1 + hits) / (1 + 400)
    assert spread_test(theta, sigma, groups, rng=0) == (statistic, p)  # the same generator, the same p
    # fewer than two teams of two or more runs: nothing to compare
    for alone in (np.arange(7), np.array([0, 0, 1, 2, 3, 4, 5])):
        assert all(np.isnan(spread_test(theta, sigma, alone, rng=0)))


def test_the_spread_test_holds_its_level_and_finds_a_tight_team():
    from robustness.statistics.population import spread_test

    rng = np.random.default_rng(11)
    groups = np.repeat(np.arange(6), 4)
    a = rng.standard_normal((24, 24)) * 0.3 + np.eye(24)
    sigma = a @ a.T * 1e-5  # correlated noise, as on shared test cases (SD about 0.006)
    # one within-team spread shared by the teams (the null): rejections at 5% near 5% (SE 1.5% over 200)
    null = [spread_test(_shared_spread_scores(rng, groups, sigma), sigma, groups, n_sims=200, rng=rng)[1]
            for _ in range(200)]
    assert 0.01 <= np.mean(np.array(null) < 0.05) <= 0.10
    # the first team a tenth as spread as the others, which are twice as spread: rejected nearly always
    tight = [spread_test(_shared_spread_scores(rng, groups, sigma, within=(0.002, 0.04)), sigma, groups,
                         n_sims=200, rng=rng)[1] for _ in range(50)]
    assert np.mean(np.array(tight) < 0.05) >= 0.8


def test_ranking_uncertainty_reports_the_spread_test_on_its_own_stream(schemes):
    from robustness.parallel import batch_generators
    from robustness.statistics.population import spread_test

    sizes = np.array([15, 30])
    per_size, _ = ranking_uncertainty(schemes, sizes=sizes, n_resamples=20, rng=7)
    labels, _ = run_groups(schemes.runs)
    stream = batch_generators(7, 5 + 2)[-1]  # spawned after the band's: the earlier columns are unchanged
    theta, cov = delta_covariance(*schemes.ratio_parts())
    for s, (strategy, metric, average) in enumerate(schemes.names):
        got = per_size[(per_size.strategy == strategy) & (per_size.average == average)]
        want = spread_test(theta[s], cov[s], labels, rng=stream)[1]
        assert (got.spread_p == want).all()
    bare, _ = ranking_uncertainty(schemes, sizes=sizes, n_resamples=0, rng=7)
    assert bare.spread_p.isna().all()


def test_the_flag_and_its_sentence_follow_the_spread_test():
    import pandas as pd

    from robustness.reporting.sections.common import band_sentence
    from robustness.results.study_result import StudyResult, Verdicts
    from robustness.statistics.uncertainty import FLAG_ALPHA
    from robustness.studies.resampling_verdicts import _band_verdicts

    key = {"strategy": "majority", "metric": "jaccard", "average": "micro"}
    for p, flagged in ((FLAG_ALPHA / 2, True), (FLAG_ALPHA, False), (np.nan, False)):
        at = pd.DataFrame({"m": [10, 80], "expected_l1": [20.0, 8.0], "band_low": [15.0, 5.0],
                           "band_high": [26.0, 12.5], "band_other": "per_team", "prior_gap": [0.1, 0.42],
                           "spread_p": p, "confidence": 0.95})
        v = Verdicts()
        _band_verdicts(v, at, at.iloc[0], key)
        rows = StudyResult("rank_convergence", verdicts=v.frame()).verdict("distance_band", **key)
        assert {r["statement"] for r in rows} == {"prior_sensitive" if flagged else "settled"}
        text = band_sentence(StudyResult("rank_convergence", verdicts=v.frame()), key, "case")
        assert "15.0 to 26.0 at 10 cases and 5.0 to 12.5 at 80 cases" in text
        assert ("differ in spread: read the range" in text) == flagged
        if flagged:  # a statement about the runs, not about this test set's estimate
            assert f"p = {FLAG_ALPHA / 2:.3f}" in text and "42%" in text and "12.5 there" in text
            assert "about your runs, not about this test set" in text
        # with the range of size claims, a flagged sentence tells the reader to claim its upper end
        for statement, high, said in (("within", 61.4, "claim the range's upper end too, 61 cases"),
                                      ("beyond", np.nan, "claim the range's upper end too, more than 80 cases")):
            w = Verdicts()
            _band_verdicts(w, at, at.iloc[0], key)
            w.add("units_needed_range", statement=statement, low=20.0, high=high, count=80, subject=["5"],
                  table="test_set_size.csv", **key)
            text = band_sentence(StudyResult("rank_convergence", verdicts=w.frame()), key, "case")
            assert (said in text) == flagged, text


@pytest.mark.parametrize("n_threads", [2, 3, 7, 64])
def test_noisy_l1_split_over_threads_gives_the_serial_numbers(n_threads):
    """Splitting the draws over threads changes no number (every row is ranked alone): any n_jobs, same result."""
    rng = np.random.default_rng(5)
    draws = rng.normal(size=(37, 12))
    draws[:, 3] = draws[:, 4]  # ties in the population
    noise = rng.normal(size=(120, 12))  # 37 x 120 rankings: two blocks of SPLIT_RANKINGS at least
    serial = noisy_l1(draws, noise, 0.3, 0.05, n_threads=1)
    np.testing.assert_array_equal(noisy_l1(draws, noise, 0.3, 0.05, n_threads=n_threads), serial)
    with threads_for_kernels(n_threads):  # the default inside a study: split where the call is large enough
        np.testing.assert_array_equal(noisy_l1(draws, noise, 0.3, 0.05), serial)
        np.testing.assert_array_equal(noisy_l1(draws[:1], noise[:2], 0.3, 0.05), serial[:1, :2])  # too small: serial
        # several sizes at once, split alike: each size's numbers are those of its own call
        sizes = np.array([1, 7, 40])
        at_once = noisy_l1(draws, noise, 1 / np.sqrt(sizes), 0.05)
    assert at_once.shape == (3, 37, 120)
    for k, m in enumerate(sizes):
        np.testing.assert_array_equal(at_once[k], noisy_l1(draws, noise, 1 / np.sqrt(m), 0.05, n_threads=1))


def test_a_target_judged_per_bin_names_its_bin(monkeypatch):
    """p_best_pooled has three rows (bins) per scheme: each verdict names its bin beside the population."""
    from robustness.simulation.calibration_summary import CALIBRATION_COLUMNS
    from robustness.studies import calibration as study

    bins = ["claimed p_best in [0, 0.5)", "claimed p_best in [0.5, 0.8)", "claimed p_best in [0.8, 1]"]
    table = pd.DataFrame([{c: np.nan for c in CALIBRATION_COLUMNS} | {
        "estimator": "p_best_pooled", "setting": b, "population": "pooled (2 populations)",
        "scheme": "majority jaccard micro", "relative_bias": bias, "relative_bias_se": 0.01}
        for b, bias in zip(bins, (-0.2, 0.0, 0.05))])
    empty = pd.DataFrame()
    monkeypatch.setattr(study, "calibrate", lambda *a, **k: (table, empty, empty, empty))
    res = study.run([])
    rows = [r for r in res.verdict("target") if r["subject"][0] == "p_best_pooled"]
    assert [r["subject"][2] for r in rows] == [f"pooled (2 populations), {b}" for b in bins]
    assert [r["statement"] for r in rows] == ["not_met", "met", "met"]


def test_the_size_claims_overshoot_is_judged_as_the_ratio_the_summary_names(monkeypatch):
    """"median size claim at most 2.5 times the true need": the verdict's value is the median claim over the need
    (not that less 1), judged against 2.5, undecided within two SEs (the design populations' average)."""
    from robustness.simulation.calibration_summary import CALIBRATION_COLUMNS
    from robustness.studies import calibration as study

    cells = [("few", 6.96, np.nan), ("default", 1.95, np.nan), ("design (8 populations)", 2.3, 0.15),
             ("design (8 populations)", 3.2, 0.1)]
    table = pd.DataFrame([{c: np.nan for c in CALIBRATION_COLUMNS} | {
        "estimator": "units_needed", "setting": "expected L1 <= 1.17", "population": population,
        "scheme": f"majority jaccard {average}", "claim_to_need": ratio, "claim_to_need_se": se,
        "relative_bias": ratio - 1, "true_need": 28.0}
        for (population, ratio, se), average in zip(cells, ("micro", "micro", "micro", "macro"))])
    empty = pd.DataFrame()
    monkeypatch.setattr(study, "calibrate", lambda *a, **k: (table, empty, empty, empty))
    rows = [r for r in study.run([]).verdict("target") if r["subject"][1] == "claim_to_need"]
    assert [r["value"] for r in rows] == [6.96, 1.95, 2.3, 3.2] and {r["high"] for r in rows} == {2.5}
    assert [r["statement"] for r in rows] == ["not_met", "met", "undecided", "not_met"]


def test_p_best_is_the_likelihoods_probability_of_first_place():
    """The reported p_best is the probability of first place under the scores' normal sampling distribution alone
    (no prior, no shrinkage; docs/calibration.md: the rule whose claims came closest to as often as they said), here
    against the exact orthant probability of the score differences (scipy's multivariate normal CDF), not a
    Monte Carlo of the package's. The empirical-Bayes posteriors stay beside it and differ from it here."""
    import pandas as pd
    from scipy.stats import multivariate_normal

    from robustness.statistics.population import delta_covariance
    from robustness.statistics.table_schemes import schemes_from_table

    rng = np.random.default_rng(11)
    true = np.array([0.70, 0.69, 0.55, 0.40])
    values = true[None, :] + rng.normal(0, 0.08, (80, 4))
    runs = ["teamA-run1", "teamA-run2", "teamB-run1", "teamB-run2"]
    table = pd.DataFrame([{"case": f"c{u}", "algorithm": runs[r], "value": values[u, r]}
                          for u in range(80) for r in range(4)])
    sc = schemes_from_table(table)
    _, per_run = ranking_uncertainty(sc, n_resamples=10, rng=3)
    theta, cov = delta_covariance(*sc.ratio_parts())
    theta, cov = theta[0], cov[0]
    exact = []
    for r in range(4):  # P(theta_r + e_r > theta_j + e_j for every j): the differences' orthant probability
        others = [j for j in range(4) if j != r]
        a = np.zeros((3, 4))
        a[np.arange(3), r] = 1.0
        a[np.arange(3), others] = -1.0
        exact.append(multivariate_normal(mean=np.zeros(3), cov=a @ cov @ a.T).cdf(a @ theta))
    got = per_run.set_index("run").loc[runs]
    np.testing.assert_allclose(got.p_best, exact, atol=0.03)  # 4,000 draws: SE at most 0.008
    assert abs(sum(exact) - 1) < 1e-3
    # the priors shrink the first team's two runs towards each other: their posteriors split first place otherwise
    assert np.abs(got.p_best_shared - exact).max() > 0.05 or np.abs(got.p_best_per_team - exact).max() > 0.05
