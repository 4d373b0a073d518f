"""Medical-image masks: every format read with its geometry, and a run on another grid refused in one line."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from robustness.errors import InputError
from robustness.io.volumes import check_same_grid, labels_in, read_volume, volume_suffix

sitk = pytest.importorskip("SimpleITK")


def write(path, array, spacing=(2.5, 0.8, 0.7), origin=None, direction=None):
    img = sitk.GetImageFromArray(array)
    img.SetSpacing(tuple(float(s) for s in spacing[::-1]))
    if origin is not None:
        img.SetOrigin(origin)
    if direction is not None:
        img.SetDirection(direction)
    sitk.WriteImage(img, str(path))
    return path


def labelled(shape=(4, 5, 6)):
    arr = np.zeros(shape, np.uint8)
    arr[1:3, 1:4, 2:5] = 1
    arr[2, 2, 2] = 2
    return arr


@pytest.mark.parametrize("name", ["m.nii", "m.nii.gz", "m.nrrd", "m.mha", "m.mhd"])
def test_every_format_reads_labels_and_spacing_in_array_order(tmp_path, name):
    arr = labelled()
    labels, geom = read_volume(write(tmp_path / name, arr))
    np.testing.assert_array_equal(labels, arr)
    assert geom.shape == (4, 5, 6) and np.allclose(geom.spacing, (2.5, 0.8, 0.7))
    assert labels_in(labels) == [1, 2]
    assert geom.describe() == "6 x 5 x 4 voxels of 0.7 x 0.8 x 2.5"
    if name.endswith(".gz"):
        with gzip.open(tmp_path / name) as fh:  # really gzipped
            assert len(fh.read(348)) == 348


def test_2d_nifti_and_suffixes(tmp_path):
    arr = labelled()[2]
    labels, geom = read_volume(write(tmp_path / "slice.nii.gz", arr, spacing=(0.5, 0.25)))
    assert labels.shape == (5, 6) and geom.spacing == (0.5, 0.25)
    assert volume_suffix(tmp_path / "slice.nii.gz") == ".nii.gz" and volume_suffix("x.tif") is None


def test_grids_that_differ_are_refused_naming_both_files(tmp_path):
    arr = labelled()
    gold = (tmp_path / "gold.nii.gz", read_volume(write(tmp_path / "gold.nii.gz", arr))[1])
    same = read_volume(write(tmp_path / "run.nii.gz", arr))[1]
    check_same_grid((tmp_path / "run.nii.gz", same), gold)  # the same grid passes

    cases = {
        "size": (write(tmp_path / "r1.nii.gz", labelled((4, 5, 7))), "7 x 5 x 4 voxels of 0.7 x 0.8 x 2.5, but its "
                 f"reference {gold[0]} has 6 x 5 x 4 voxels"),
        "spacing": (write(tmp_path / "r2.nii.gz", arr, spacing=(2.5, 0.8, 0.8)), "voxel spacing 0.8 x 0.8 x 2.5, but "
                    f"its reference {gold[0]} has 0.7 x 0.8 x 2.5"),
        "origin": (write(tmp_path / "r3.nii.gz", arr, origin=(0.0, 0.0, 5.0)), "origin (0.0, 0.0, 5.0), but its "
                   f"reference {gold[0]} has (0.0, 0.0, 0.0)"),
        "orientation": (write(tmp_path / "r4.nii.gz", arr, direction=(-1, 0, 0, 0, 1, 0, 0, 0, 1)),
                        f"another orientation (direction cosines) than its reference {gold[0]}"),
    }
    for what, (path, message) in cases.items():
        with pytest.raises(InputError) as err:
            check_same_grid((path, read_volume(path)[1]), gold)
        text = str(err.value)
        assert text.startswith(f"{path}: ") and message in text and "\n" not in text, (what, text)


def test_bad_files_are_refused_in_one_line(tmp_path):
    broken = tmp_path / "broken.nii.gz"
    broken.write_bytes(b"\x1f\x8b not really gzip")
    probabilities = write(tmp_path / "p.nrrd", np.full((3, 4, 5), 0.3, np.float32))
    vector = tmp_path / "v.nrrd"
    sitk.WriteImage(sitk.GetImageFromArray(np.zeros((3, 4, 5, 3), np.uint8), isVector=True), str(vector))
    negative = write(tmp_path / "n.mha", np.full((3, 4, 5), -1, np.int16))
    for path, message in ((broken, "not a readable medical image"), (probabilities, "non-integer voxel values"),
                          (vector, "3 values per voxel"), (negative, "negative labels (the smallest is -1)"),
                          (tmp_path / "missing.nii", "not a regular file")):
        with pytest.raises(InputError) as err:
            read_volume(path)
        text = str(err.value)
        assert text.startswith(f"{path}: ") and message in text and "\n" not in text, text
