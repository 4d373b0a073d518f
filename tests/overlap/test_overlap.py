"""The pixel pass: hand-made cases, a numpy reference on random challenges, n_jobs, the cache."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from robustness.errors import NoteWarning
from robustness.io.arrays import from_arrays
from robustness.overlap import OverlapOptions, compute_overlap, load_counts, save_counts
from robustness.overlap import pixel_pass as ov
from robustness.overlap.gold import staple
from robustness.synthetic.challenge import make_challenge
from tests.naive import twin_pattern_codes


def ref_counts(run, gold):
    run, gold = np.asarray(run, bool), np.asarray(gold, bool)
    return [int((run & gold).sum()), int((run & ~gold).sum()), int((~run & gold).sum())]


def ref_gold(masks, strategy):
    a = np.stack([np.asarray(m, bool) for m in masks])
    k = len(a)
    if strategy == "majority":
        return a.sum(0) >= np.ceil(k / 2)
    if strategy == "intersection":
        return a.all(0)
    if strategy == "union":
        return a.any(0)
    raise ValueError(strategy)


def check_against_reference(ch, oc):
    for i in range(ch.n_images):
        ann = ch.annotator_masks(i)
        for r, s in enumerate(ch.runs):
            run = ch.run_mask(i, s)
            for g in ("majority", "intersection", "union"):
                if g in oc.strategies:
                    assert oc.strategy_counts(g)[r, i].tolist() == ref_counts(run, ref_gold(list(ann.values()), g))
            for a, m in ann.items():
                j = ch.annotators.index(a)
                assert oc.annotator_counts[j, r, i].tolist() == ref_counts(run, m)
            for s_idx, name in enumerate(oc.strategies):
                if name.startswith("rand"):
                    chosen = ch.annotators[oc.rand_choice[int(name[4:]) - 1, i]]
                    assert chosen in ann
                    assert oc.counts[s_idx, r, i].tolist() == ref_counts(run, ann[chosen])
        for a, m in ann.items():
            j = ch.annotators.index(a)
            for b, mb in ann.items():
                assert oc.pair_counts[j, ch.annotators.index(b), i].tolist() == ref_counts(m, mb)
            for g in ("majority", "union"):
                gi = oc.strategies.index(g)
                assert oc.annotator_vs_gold[j, gi, i].tolist() == ref_counts(m, ref_gold(list(ann.values()), g))
        missing = [j for j, a in enumerate(ch.annotators) if a not in ann]
        assert not oc.annotator_valid[missing, i].any()
        assert (oc.annotator_counts[missing, :, i] == 0).all()


def test_hand_made_cases():
    t = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 0], [0, 1, 1]])
    tie4 = {  # 4 annotators, a 2-2 tie on the top-left 2x2 block: majority is foreground there
        "ann0": np.array([[1, 1, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]),
        "ann1": np.array([[1, 1, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]),
        "ann2": np.array([[0, 0, 0], [1, 1, 0], [0, 0, 0], [0, 0, 0]]),
        "ann3": np.array([[0, 0, 0], [1, 1, 0], [0, 0, 0], [0, 0, 1]]),
    }
    two = {"ann0": t, "ann2": np.array([[1, 0, 0], [1, 0, 0], [0, 0, 0], [0, 0, 0]])}
    empty_ann = {"ann0": np.zeros((4, 3)), "ann1": t, "ann3": t}
    all_empty = {"ann1": np.zeros((4, 3)), "ann2": np.zeros((4, 3)), "ann3": np.zeros((4, 3))}
    ann = {"tie4": tie4, "two": two, "empty_ann": empty_ann, "all_empty": all_empty}
    runs = {
        "good": {"tie4": t, "two": t, "empty_ann": t, "all_empty": np.zeros((4, 3))},
        "empty": {k: np.zeros((4, 3)) for k in ann},
        "full": {k: np.ones((4, 3)) for k in ann},
    }
    ch = from_arrays(ann, runs)
    oc = compute_overlap(ch, rng=0)
    check_against_reference(ch, oc)
    # spelled out: on the 2-2 tie image, the majority is the 2x2 block plus nothing else
    maj = oc.strategy_counts("majority")
    assert maj[ch.runs.index("good"), 0].tolist() == [4, 2, 0]
    assert maj[ch.runs.index("full"), 0].tolist() == [4, 8, 0]
    # two annotators: majority == union
    assert oc.strategy_counts("majority")[:, 1].tolist() == oc.strategy_counts("union")[:, 1].tolist()
    # all-empty image: every gold empty, STAPLE guard applied
    i = ch.images.index("all_empty")
    assert oc.staple_rule[i] == "all-empty"
    assert oc.strategy_counts("staple")[ch.runs.index("empty"), i].tolist() == [0, 0, 0]
    assert oc.strategy_counts("staple")[ch.runs.index("full"), i].tolist() == [0, 12, 0]


def test_random_challenge_against_reference():
    ch = make_challenge(n_encounters=6, n_images=12, n_runs=5, n_teams=2, rng=9)
    oc = compute_overlap(ch, rng=1)
    check_against_reference(ch, oc)
    # STAPLE counts: against the STAPLE mask rebuilt independently from the pattern histogram
    for i in range(ch.n_images):
        masks = list(ch.annotator_masks(i).values())
        codes, hist = twin_pattern_codes(np.stack([m.ravel().view(np.uint8) for m in masks]))
        gold = staple(hist).lut[codes].reshape(masks[0].shape)
        for r, s in enumerate(ch.runs):
            assert oc.strategy_counts("staple")[r, i].tolist() == ref_counts(ch.run_mask(i, s), gold)


def test_identical_for_any_n_jobs():
    ch = make_challenge(n_encounters=8, n_images=14, n_runs=4, n_teams=2, rng=3)
    a = compute_overlap(ch, rng=5, n_jobs=1)
    b = compute_overlap(ch, rng=5, n_jobs=2)
    for name in ("counts", "annotator_counts", "annotator_vs_gold", "pair_counts", "rand_choice",
                 "staple_iterations", "staple_converged"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_scoring_without_leave_one_out_counts_the_same():
    ch = make_challenge(n_encounters=5, n_images=7, n_runs=3, n_teams=1, rng=4)
    full = compute_overlap(ch, rng=5)
    lean = compute_overlap(ch, rng=5, options=OverlapOptions(leave_one_out=False))
    for name in ("counts", "annotator_counts", "annotator_vs_gold", "pair_counts", "run_twins"):
        np.testing.assert_array_equal(getattr(full, name), getattr(lean, name))
    assert full.loo_valid.any() and not lean.loo_valid.any() and full.fingerprint != lean.fingerprint


def test_old_keywords_of_compute_overlap_still_count_the_same_with_a_warning():
    """OverlapOptions' fields as keywords, and n_random (the forms before it): the same counts, each warned."""
    ch = make_challenge(n_encounters=4, n_images=5, n_runs=2, n_teams=1, rng=4)
    new = compute_overlap(ch, rng=5, boundary=["hd95"], options=OverlapOptions(
        leave_one_out=False, staple_max_iter=9, boundary_conventions={"empty_distance": 50.0}))
    with pytest.warns(DeprecationWarning, match=r"compute_overlap\(\): staple_max_iter=, leave_one_out=, "
                                                r"boundary_conventions= are deprecated; pass options=OverlapOptions"):
        old = compute_overlap(ch, rng=5, boundary=["hd95"], staple_max_iter=9, leave_one_out=False,
                              boundary_conventions={"empty_distance": 50.0})
    assert old.fingerprint == new.fingerprint
    for name in ("counts", "loo_valid", "fit_iterations", "boundary"):
        np.testing.assert_array_equal(getattr(old, name), getattr(new, name))
    named = [f"rand{i}" for i in range(1, 6)] + ["majority", "intersection", "union", "staple"]
    with pytest.warns(DeprecationWarning, match=r"n_random= is deprecated; pass strategies="):
        five = compute_overlap(ch, rng=5, n_random=5)
    assert five.strategies == tuple(named)
    np.testing.assert_array_equal(five.counts, compute_overlap(ch, rng=5, strategies=named).counts)
    with pytest.raises(TypeError, match="unexpected keyword argument 'loo'"):
        compute_overlap(ch, loo=False)


def test_rand_strategies_seeded():
    ch = make_challenge(n_encounters=8, n_images=20, n_runs=2, n_teams=1, rng=3)
    a = compute_overlap(ch, rng=1)
    b = compute_overlap(ch, rng=1)
    c = compute_overlap(ch, rng=2)
    np.testing.assert_array_equal(a.rand_choice, b.rand_choice)
    assert not np.array_equal(a.rand_choice, c.rand_choice)
    assert not np.array_equal(a.rand_choice[0], a.rand_choice[1])  # independent per strategy


def test_strategy_selection_and_order():
    ch = make_challenge(n_encounters=3, n_images=4, n_runs=2, n_teams=1, rng=3)
    oc = compute_overlap(ch, strategies=["staple", "rand1", "majority"], rng=0)
    full = compute_overlap(ch, rng=0)
    assert oc.strategies == ("staple", "rand1", "majority")
    np.testing.assert_array_equal(oc.strategy_counts("staple"), full.strategy_counts("staple"))
    np.testing.assert_array_equal(oc.strategy_counts("majority"), full.strategy_counts("majority"))


def test_to_frame_and_save_load(tmp_path):
    ch = make_challenge(n_encounters=3, n_images=4, n_runs=2, n_teams=1, rng=3)
    oc = compute_overlap(ch, rng=0)
    df = oc.to_frame()
    assert list(df.columns) == ["strategy", "run", "image", "encounter", "tp", "fp", "fn"]
    n_valid = int(oc.annotator_valid.sum())
    assert len(df) == 7 * 2 * 4 + n_valid * 2
    row = df[(df.strategy == "union") & (df.run == ch.runs[1]) & (df.image == ch.images[2])]
    assert row[["tp", "fp", "fn"]].values.tolist() == [oc.strategy_counts("union")[1, 2].tolist()]
    save_counts(oc, tmp_path / "c.npz")
    back = load_counts(tmp_path / "c.npz")
    assert back.strategies == oc.strategies and back.images == oc.images
    np.testing.assert_array_equal(back.counts, oc.counts)
    # the file is numpy's own .npz (a compressed zip of .npy files): numpy reads every field, bit for bit
    import dataclasses
    import zipfile

    with zipfile.ZipFile(tmp_path / "c.npz") as z:
        assert all(i.compress_type == zipfile.ZIP_DEFLATED for i in z.infolist())
        raw = sum(i.file_size for i in z.infolist())
        assert sum(i.compress_size for i in z.infolist()) < raw
    with np.load(tmp_path / "c.npz", allow_pickle=False) as z:
        for f in dataclasses.fields(oc):
            value = getattr(oc, f.name)
            if isinstance(value, np.ndarray):
                assert z[f.name].dtype == value.dtype
                np.testing.assert_array_equal(z[f.name], value)


# -- the cache --------------------------------------------------------------

@pytest.fixture
def disk_challenge(tmp_path):
    from robustness.io import load_dermavqa, write_dermavqa

    ch = make_challenge(n_encounters=4, n_images=6, n_runs=3, n_teams=1, rng=8)
    folder = write_dermavqa(ch, tmp_path / "challenge")
    return folder, load_dermavqa(folder)


def count_passes(monkeypatch):
    calls = []
    real = ov._pixel_pass
    monkeypatch.setattr(ov, "_pixel_pass", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def test_cache_reused_and_invalidated(disk_challenge, tmp_path, monkeypatch):
    from robustness.io import load_dermavqa

    folder, ch = disk_challenge
    calls = count_passes(monkeypatch)
    cache = tmp_path / "cache"
    a = compute_overlap(ch, cache_dir=cache, rng=0)
    b = compute_overlap(ch, cache_dir=cache, rng=1)  # another seed: rand draws change, pixels do not
    assert len(calls) == 1
    np.testing.assert_array_equal(a.annotator_counts, b.annotator_counts)
    # a changed input invalidates the cache
    p = next((folder / "submissions").rglob("*.tiff"))
    st = p.stat()
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    compute_overlap(load_dermavqa(folder), cache_dir=cache, rng=0)
    assert len(calls) == 2
    # other settings invalidate it too
    compute_overlap(load_dermavqa(folder), cache_dir=cache, options=OverlapOptions(staple_max_iter=7), rng=0)
    assert len(calls) == 3


def test_interrupted_cache_write_is_never_trusted(disk_challenge, tmp_path, monkeypatch):
    _, ch = disk_challenge
    cache = tmp_path / "cache"
    real = np.savez_compressed

    def interrupted(f, **arrays):
        f.write(b"PK\x03\x04 half a zip")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez_compressed", interrupted)
    with pytest.raises(KeyboardInterrupt):
        compute_overlap(ch, cache_dir=cache, rng=0)
    assert list(cache.iterdir()) == []  # nothing left behind
    monkeypatch.setattr(np, "savez_compressed", real)
    calls = count_passes(monkeypatch)
    compute_overlap(ch, cache_dir=cache, rng=0)
    assert len(calls) == 1


def test_damaged_cache_is_recomputed(disk_challenge, tmp_path, monkeypatch):
    _, ch = disk_challenge
    cache = tmp_path / "cache"
    good = compute_overlap(ch, cache_dir=cache, rng=0)
    (f,) = cache.iterdir()
    f.write_bytes(f.read_bytes()[:100])
    calls = count_passes(monkeypatch)
    with pytest.warns(NoteWarning, match="ignoring unreadable overlap cache"):
        again = compute_overlap(ch, cache_dir=cache, rng=0)
    assert len(calls) == 1
    np.testing.assert_array_equal(good.counts, again.counts)


def test_cache_not_fooled_by_a_restored_mtime(tmp_path, monkeypatch):
    """Flip 1,600 pixels of an uncompressed TIFF in place and restore its mtime: the stale counts are not reused."""

    from robustness.io import load_dermavqa, write_dermavqa

    folder = write_dermavqa(make_challenge(n_encounters=3, n_images=4, n_runs=2, n_teams=1, rng=8),
                            tmp_path / "challenge", compression=None)
    calls = count_passes(monkeypatch)
    cache = tmp_path / "cache"
    before = compute_overlap(load_dermavqa(folder), cache_dir=cache, rng=0)
    p = sorted((folder / "submissions").rglob("*.tiff"))[0]
    st = p.stat()
    import tifffile

    with tifffile.TiffFile(p) as tif:
        start, length = tif.pages[0].dataoffsets[0], sum(tif.pages[0].databytecounts)
    raw = bytearray(p.read_bytes())
    flips = list(range(start, start + length))[:1600]
    time.sleep(0.05)  # beyond the file system's timestamp granularity
    with open(p, "r+b") as f:  # in place: same inode, same size
        for i in flips:
            f.seek(i)
            f.write(bytes([1 - raw[i]]))
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert p.stat().st_mtime_ns == st.st_mtime_ns and p.stat().st_size == st.st_size
    after = compute_overlap(load_dermavqa(folder), cache_dir=cache, rng=0)
    assert len(calls) == 2
    assert not np.array_equal(before.counts, after.counts)
    np.testing.assert_array_equal(after.counts, compute_overlap(load_dermavqa(folder), rng=0).counts)


def test_stale_cache_temporaries_are_cleaned(disk_challenge, tmp_path):
    _, ch = disk_challenge
    cache = tmp_path / "cache"
    cache.mkdir()
    dead = 2 ** 22 + 4321  # above Linux's pid_max: no such process
    (cache / f".overlap-0123.npz.{dead}.x1y2.tmp").write_bytes(b"left by a killed run")
    (cache / f".overlap-0123.npz.{os.getpid()}.x1y3.tmp").write_bytes(b"being written by a live one")
    compute_overlap(ch, cache_dir=cache, rng=0)
    names = sorted(p.name for p in cache.iterdir())
    assert names[0].endswith("x1y3.tmp") and names[1].startswith("overlap-") and len(names) == 2


def test_batches_carry_only_their_own_images(disk_challenge, monkeypatch):
    """Workers get a batch's file paths (a small picklable challenge), never the whole challenge."""
    import pickle

    _, ch = disk_challenge
    seen = []
    real = ov._count_batch
    monkeypatch.setattr(ov, "_count_batch", lambda c, *a: seen.append(c) or real(c, *a))
    monkeypatch.setattr(ov, "_BATCH_IMAGES", 2)
    compute_overlap(ch, rng=0)
    assert [c.n_images for c in seen] == [2, 2, 2]
    assert [c.images for c in seen] == [ch.images[0:2], ch.images[2:4], ch.images[4:6]]
    whole, part = len(pickle.dumps(ch)), len(pickle.dumps(seen[0]))
    assert part < 0.6 * whole
    for c in seen:
        assert all(len(v) == 2 for v in c.source.run_paths.values())


def test_leave_one_out_consensus_counts():
    ch = make_challenge(n_encounters=5, n_images=8, n_runs=3, n_teams=1, rng=12)
    oc = compute_overlap(ch, rng=0)
    for i in range(ch.n_images):
        ann = ch.annotator_masks(i)
        for a in ann:
            others = [m for b, m in ann.items() if b != a]
            codes, hist = twin_pattern_codes(np.stack([m.ravel().view(np.uint8) for m in others]))
            consensus = staple(hist).lut[codes].reshape(others[0].shape)
            j = ch.annotators.index(a)
            assert oc.loo_valid[j, i]
            assert oc.loo_annotator[j, i].tolist() == ref_counts(ann[a], consensus)
            for r, s in enumerate(ch.runs):
                assert oc.loo_counts[j, r, i].tolist() == ref_counts(ch.run_mask(i, s), consensus)
        absent = [j for j, a in enumerate(ch.annotators) if a not in ann]
        assert not oc.loo_valid[absent, i].any()


def test_more_than_16_annotators_is_a_clear_error():
    from robustness.errors import InputError

    m = np.zeros((2, 2))
    ch = from_arrays({"img": {f"a{j:02d}": m for j in range(17)}}, {"run": {"img": m}})
    with pytest.raises(InputError, match=r"image img has 17 annotators; at most 16 per image are supported"):
        compute_overlap(ch)
