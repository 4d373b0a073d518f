"""publish: how the results were made (Provenance) reaches meta.json, and the keywords of before still do."""

from __future__ import annotations

import json

import pytest

from robustness.reporting.publish import Provenance, publish
from robustness.results.study_result import StudyResult


@pytest.fixture(scope="module")
def scored() -> StudyResult:
    from robustness.studies.scoring import score
    from robustness.synthetic.challenge import make_challenge

    return score(make_challenge(n_encounters=2, n_images=3, n_runs=2, n_teams=1, rng=0))


def test_provenance_is_what_meta_json_records(scored, tmp_path):
    drawn = []

    def drawer(folder, **_):
        drawn.append(folder)
        return []

    made = Provenance(command="python -m experiments.score --seed 3", parameters={"seed": 3}, seed=3, started=0.0,
                      meta={"extra": 1})
    publish(scored, tmp_path / "out", figures=drawer, provenance=made)
    meta = json.loads((tmp_path / "out" / "meta.json").read_text())
    assert (meta["command"], meta["parameters"], meta["seed"], meta["extra"]) == (made.command, {"seed": 3}, 3, 1)
    assert meta["wall_time_s"] > 1e9  # from started=0.0, not from when publish began
    assert len(drawn) == 1  # the drawer given as figures drew them
    # the input's fingerprint opens the folder: another one is refused unless forced
    with pytest.raises(Exception, match="another input|different input|force"):
        publish(scored, tmp_path / "out", figures=False, provenance=Provenance(fingerprint="other"))
    publish(scored, tmp_path / "out", figures=False, force=True, provenance=Provenance(fingerprint="other"))


def test_the_keywords_of_before_still_work_with_a_deprecation_warning(scored, tmp_path):
    with pytest.warns(DeprecationWarning, match=r"publish\(\): command=, seed= are deprecated; pass provenance="):
        publish(scored, tmp_path / "out", figures=False, command="python -m experiments.score", seed=5)
    meta = json.loads((tmp_path / "out" / "meta.json").read_text())
    assert (meta["command"], meta["seed"]) == ("python -m experiments.score", 5)
    with pytest.raises(TypeError, match="unexpected keyword argument 'figure'"):
        publish(scored, tmp_path / "out", figure=False)
