"""One word for how the gold is built: ``strategy`` (the tables' column, the registry, ``--strategies``, ``Scheme``).

"Gold" names the reference itself (``--gold``: the annotators whose masks make it; the QA gold answers); the way a
gold mask is built from them is its strategy. ``Scheme.gold``, ``Scheme.gold_label``, ``agreement(gold=)`` and
``count_image(golds=)`` were the strategy under the other word: they still work, each with one DeprecationWarning
naming the new spelling, and give what the new names give.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from robustness.overlap import compute_overlap
from robustness.overlap.image_counts import count_image
from robustness.scheme import DEFAULT, Scheme, from_meta
from robustness.statistics.spread import agreement
from robustness.studies.rank_convergence_metrics import PerImage
from robustness.synthetic.challenge import make_challenge


def _deprecated(call):
    """``call()``'s value and the messages of its DeprecationWarnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = call()
    return value, [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]


@pytest.fixture(scope="module")
def tiny():
    return make_challenge(n_encounters=3, n_images=4, n_runs=3, n_teams=1, rng=0)


def test_scheme_takes_strategy_and_still_takes_gold_with_a_warning():
    new = Scheme(strategy="staple", metric="dice", average="macro")
    old, said = _deprecated(lambda: Scheme(gold="staple", metric="dice", average="macro"))
    assert old == new and old.strategy == "staple"
    assert said == ["Scheme(): gold= is deprecated; pass strategy=..."]
    with pytest.raises(TypeError, match="both strategy= and its deprecated name gold="):
        Scheme(strategy="staple", gold="union", metric="dice", average="macro")
    with pytest.raises(TypeError, match="unexpected keyword argument 'golds'"):
        Scheme(golds="staple", metric="dice", average="macro")
    with pytest.raises(TypeError, match="missing required argument\\(s\\): 'metric', 'average'"):
        Scheme("staple")
    with pytest.raises(TypeError, match="missing required argument\\(s\\): 'strategy'"):
        Scheme(metric="dice", average="macro")


def test_the_old_attribute_names_warn_and_give_the_new_ones():
    s = Scheme.parse("staple:dice:micro")
    for old, new in (("gold", "strategy"), ("gold_label", "strategy_label")):
        value, said = _deprecated(lambda old=old: getattr(s, old))
        assert value == getattr(s, new)
        assert said == [f"Scheme.{old} is deprecated; use Scheme.{new}"]
    assert s.strategy_label != s.strategy  # the registry's prose label, not the name


def test_the_scheme_is_still_checked_whichever_name_carries_the_strategy():
    with pytest.raises(ValueError, match="gold strategy 'rand1' is one annotator drawn at random"):
        Scheme("rand1", "jaccard", "micro")
    with pytest.raises(ValueError, match="gold strategy 'mean' .* exists only macro"), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        Scheme(gold="mean", metric="jaccard", average="micro")


def test_meta_json_names_the_strategy_and_folders_written_before_still_read():
    record = Scheme.parse("union:dice:macro").to_meta()
    assert record["strategy"] == "union" and "gold" not in record
    assert from_meta({"primary": record}) == Scheme.parse("union:dice:macro")
    before = {k: v for k, v in record.items() if k != "strategy"} | {"gold": "union"}
    assert from_meta({"primary": before}) == Scheme.parse("union:dice:macro")
    # a record naming its strategy twice, or not at all, or no record: damaged, said as such (not a silent pick, not
    # a KeyError naming the old key)
    for damaged, said in ((record | {"gold": "staple"}, "its gold strategy twice"),
                          ({k: v for k, v in record.items() if k != "strategy"}, r"no gold strategy \('strategy'\)"),
                          ("union:dice:macro", "primary is not a record"),
                          (record | {"strategy": None}, "gives no name for 'strategy'"),
                          ({k: v for k, v in record.items() if k != "average"}, "gives no name for 'average'")):
        with pytest.raises(ValueError, match=said):
            from_meta({"primary": damaged})


@pytest.mark.slow
def test_a_rebuild_refuses_a_primary_record_naming_two_strategies(tiny_main, tmp_path, capsys):
    import json
    import shutil

    from experiments import report
    from experiments._cli import run

    folder = tmp_path / "copy"
    shutil.copytree(tiny_main[1], folder)
    meta = json.loads((folder / "meta.json").read_text())
    before = (folder / "summary.md").read_bytes()
    meta["primary"]["gold"] = "staple" if meta["primary"]["strategy"] != "staple" else "majority"
    (folder / "meta.json").write_text(json.dumps(meta))
    assert run(report.main, [str(folder), "--quiet"]) == 2
    errors = [x for x in capsys.readouterr().err.splitlines() if x.startswith("error:")]
    assert len(errors) == 1 and str(folder) in errors[0]
    assert "primary record names its gold strategy twice ('strategy' and 'gold')" in errors[0]
    assert (folder / "summary.md").read_bytes() == before


def test_agreement_and_count_image_take_strategies_and_still_take_the_old_names(tiny):
    counts = compute_overlap(tiny, strategies=["majority", "union"], rng=0)
    new = agreement(counts, strategy="union")
    old, said = _deprecated(lambda: agreement(counts, gold="union"))
    assert old == new and new != agreement(counts)  # the union's gold, not the default majority's
    assert said == ["agreement(): gold= is deprecated; pass strategy=..."]
    a = count_image(tiny, 0, strategies=["union"], loo=False)
    b, said = _deprecated(lambda: count_image(tiny, 0, golds=["union"], loo=False))
    assert said == ["count_image(): golds= is deprecated; pass strategies=..."]
    assert a.run.shape[0] == b.run.shape[0] == tiny.annotated[0].sum() + 1  # the annotators present, then union
    assert (a.run == b.run).all() and (a.annotator == b.annotator).all()
    # both names at once is a TypeError before any work, as Scheme(strategy=, gold=) is, whatever the values
    for call in (lambda: agreement(counts, gold="staple", strategy="majority"),
                 lambda: agreement(counts, gold=None, strategy="union"),
                 lambda: count_image(tiny, 0, golds=["staple"], strategies=["majority"], loo=False),
                 lambda: count_image(tiny, 0, golds=None, strategies=["union"], loo=False)):
        with warnings.catch_warnings(record=True) as caught, pytest.raises(TypeError, match="got both .* deprecated"):
            warnings.simplefilter("always")
            call()
        assert not caught


def test_the_default_scheme_is_spelled_with_the_registrys_word():
    assert DEFAULT.key == (DEFAULT.strategy, DEFAULT.metric, DEFAULT.average)
    assert DEFAULT.text.split(":")[0] == DEFAULT.strategy


def test_per_image_tables_say_strategy_and_still_answer_to_gold():
    p = PerImage(Scheme.parse("union:dice:macro"), "one", ["dice"], np.zeros((1, 2, 3)), np.zeros(1, bool),
                 "image", np.arange(3))
    value, said = _deprecated(lambda: p.gold)
    assert value == p.strategy == "union"
    assert said == ["PerImage.gold is deprecated; use PerImage.strategy"]


def test_a_scheme_pickled_when_its_strategy_was_called_gold_loads():
    """A pickle written before the rename (its state's key ``gold``): the same scheme, under today's field name."""
    import pickle

    scheme = Scheme.parse("staple:dice:macro")
    now = pickle.dumps(scheme, protocol=0)  # the text protocol spells each key: the old pickle is the same but one
    before = now.replace(b"Vstrategy\n", b"Vgold\n")
    assert before != now and b"strategy" not in before
    loaded = pickle.loads(before)
    assert loaded == scheme and loaded.strategy == "staple" and hash(loaded) == hash(scheme)
    assert pickle.loads(pickle.dumps(scheme)) == scheme
