"""The second hostile round (issue 31): nothing read from outside, nothing run, nothing misread in 3D.

One test (or a parametrised family) per item of the issue, each written to reproduce the attack first. Every
refusal is one line ``error: ...`` naming the file, exit status 2.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import re
import shutil
import struct
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments import rank_convergence, report, table_rank_convergence
from experiments._cli import run
from robustness.errors import InputError
from robustness.io.volumes import read_grid, read_volume

sitk = pytest.importorskip("SimpleITK")
FAST = ["--orders", "3", "--bootstrap", "10", "--outer", "4", "--quiet"]
SECRET = "root-secret-7f3a9c"  # what a file outside the input holds: must never reach any output


def _write(path, array, spacing=(2.0, 1.0, 1.0)):
    img = sitk.GetImageFromArray(array)
    img.SetSpacing(tuple(float(s) for s in spacing[::-1]))
    sitk.WriteImage(img, str(path))
    return Path(path)


def _mask(shape=(4, 5, 6)):
    a = np.zeros(shape, np.uint8)
    a[1:3, 1:4, 2:5] = 1
    return a


def one_line_error(capsys, code, *needles):
    err = capsys.readouterr().err.strip()
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert code == 2 and len(errors) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert re.search(needle, errors[0]), errors[0]
    return errors[0]


@pytest.fixture
def outside(tmp_path):
    """A file outside every input folder, holding bytes an attacker would like to read."""
    path = tmp_path / "elsewhere" / "secret.raw"
    path.parent.mkdir()
    path.write_bytes((SECRET + "\n").encode() * 10)
    return path


def _detached(folder, name, kind, target):
    """A header ``name`` (``.nhdr`` or ``.mhd``) for a 4 x 5 x 6 uchar mask whose data file is ``target``."""
    if kind == "nrrd":
        text = ("NRRD0004\ntype: unsigned char\ndimension: 3\nsizes: 6 5 4\nencoding: raw\n"
                f"data file: {target}\n")
    else:
        text = ("ObjectType = Image\nNDims = 3\nBinaryData = True\nElementSpacing = 1 1 1\nDimSize = 6 5 4\n"
                f"ElementType = MET_UCHAR\nElementDataFile = {target}\n")
    path = folder / name
    path.write_text(text)
    return path


# -- item 1 (and 11): a header's data file is never followed outside its folder, nor to a FIFO or a device ---------

@pytest.mark.parametrize("kind,name", [("nrrd", "m.nhdr"), ("mha", "m.mhd")])
@pytest.mark.parametrize("target", ["ABSOLUTE", "../elsewhere/secret.raw", "/dev/zero", "LINK", "FIFO",
                                    "LIST", "m%03d.raw 1 3 1"])
def test_a_detached_data_file_outside_its_folder_is_refused_unread(tmp_path, outside, kind, name, target):
    folder = tmp_path / "ann1"
    folder.mkdir()
    if target == "ABSOLUTE":
        target = str(outside)
    elif target == "LINK":
        (folder / "data.raw").symlink_to(outside)
        target = "data.raw"
    elif target == "FIFO":
        os.mkfifo(folder / "data.raw")
        target = "data.raw"
    header = _detached(folder, name, kind, target)
    done = []
    thread = threading.Thread(target=lambda: done.append(_refusal(header)), daemon=True)
    thread.start()
    thread.join(10)
    assert done, "reading a header with a FIFO data file blocked"
    text = done[0]
    assert text.startswith(f"{header}: ") and "\n" not in text and SECRET not in text, text
    assert re.search("outside the header's folder|symbolic link|not a regular file \\(a FIFO\\)|list or a pattern",
                     text), text


def _refusal(path):
    try:
        read_volume(path)
    except InputError as exc:
        return str(exc)
    return "read without error"


def test_a_data_file_beside_its_header_is_still_read(tmp_path):
    folder = tmp_path / "ann1"
    folder.mkdir()
    (folder / "m.raw").write_bytes(_mask().tobytes())
    for kind, name in (("nrrd", "m.nhdr"), ("mha", "m.mhd")):
        labels, geometry = read_volume(_detached(folder, name, kind, "m.raw"))
        np.testing.assert_array_equal(labels, _mask())
        assert geometry.shape == (4, 5, 6)


def test_labels_all_never_lists_the_bytes_of_a_file_outside(tmp_path, outside, capsys):
    data = tmp_path / "challenge"
    for rater in ("ann1", "ann2", "run1", "run2"):
        (data / rater).mkdir(parents=True)
        _write(data / rater / "case1.nii.gz", _mask())
    (data / "ann2" / "case1.nii.gz").unlink()
    _detached(data / "ann2", "case1.nhdr", "nrrd", str(outside))
    out = tmp_path / "out"
    code = run(rank_convergence.main, ["--layout", "raters", "--data", str(data), "--gold", "ann1,ann2",
                                       "--labels", "all", "--out", str(out), *FAST, "--no-figures"])
    line = one_line_error(capsys, code, "case1.nhdr: data file .* lies outside the header's folder")
    assert SECRET not in line and not out.exists()


# -- item 2 (and 11, 12, 13): a results folder is read as the package wrote it ---------------------------------------

@pytest.fixture(scope="module")
def hostile_results(tmp_path_factory):
    """A per-case table whose run and task names attack Markdown, HTML, CSV and mathtext; its results folder."""
    root = tmp_path_factory.mktemp("hostile")
    rng = np.random.default_rng(0)
    rows = [{"task": t, "case": f"c{c:02d}", "algorithm": a, "value": float(rng.random() + 0.1 * k)}
            for t in TASKS for c in range(8) for k, a in enumerate(ALGORITHMS)]
    table = root / "hostile.csv"
    pd.DataFrame(rows).to_csv(table, index=False)
    out = root / "out"
    assert run(table_rank_convergence.main, ["--table", str(table), "--out", str(out), *FAST]) == 0
    return out


ALGORITHMS = ["<script>alert(1)</script>", "=cmd|' /C calc'!A0", "$\\foo{$", "@SUM(1)", "A`b|c <img src=x "
              "onerror=alert(2)>", "+1", "-x"]
TASKS = ["=1+1", "<iframe src=javascript:alert(5)>"]


def _copy(folder, tmp_path):
    dest = tmp_path / "copy"
    shutil.copytree(folder, dest, symlinks=True)
    return dest


@pytest.mark.slow
@pytest.mark.parametrize("what", ["figure", "table"])
def test_report_rebuild_follows_no_link_out_of_the_folder(hostile_results, tmp_path, outside, capsys, what):
    folder = _copy(hostile_results, tmp_path)
    name = "figures/fig_16_podium.png" if what == "figure" else "ranking.csv"
    (folder / name).unlink()
    (folder / name).symlink_to(outside)
    before = (folder / "report.html").read_bytes()
    code = run(report.main, [str(folder), "--quiet"])
    one_line_error(capsys, code, re.escape(name) + r": (figure|table) is a symbolic link")
    assert (folder / "report.html").read_bytes() == before


@pytest.mark.slow
def test_report_rebuild_follows_no_linked_folder(hostile_results, tmp_path, outside, capsys):
    folder = _copy(hostile_results, tmp_path)
    shutil.rmtree(folder / "figures")
    (folder / "figures").symlink_to(_copy(hostile_results, tmp_path / "x") / "figures")
    code = run(report.main, [str(folder), "--quiet"])
    one_line_error(capsys, code, "is a symbolic link")


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["fifo", "zero", "link"])
def test_meta_json_that_is_a_fifo_or_a_device_is_refused_without_blocking(hostile_results, tmp_path, outside,
                                                                            capsys, damage):
    folder = _copy(hostile_results, tmp_path)
    (folder / "meta.json").unlink()
    if damage == "fifo":
        os.mkfifo(folder / "meta.json")
    else:
        (folder / "meta.json").symlink_to("/dev/zero" if damage == "zero" else outside)
    done = []
    thread = threading.Thread(target=lambda: done.append(run(report.main, [str(folder), "--quiet"])), daemon=True)
    thread.start()
    thread.join(20)
    assert done, "experiments.report blocked on meta.json"
    one_line_error(capsys, done[0], "meta.json: meta.json is (a symbolic link|not a regular file)")


@pytest.mark.slow
def test_a_figure_over_the_size_bound_is_refused(hostile_results, tmp_path, capsys, monkeypatch):
    from robustness.reporting import document  # where the report reads the bound

    folder = _copy(hostile_results, tmp_path)
    monkeypatch.setattr(document, "MAX_FIGURE_BYTES", 1000)
    code = run(report.main, [str(folder), "--quiet"])
    one_line_error(capsys, code, r"\.png: figure holds \d+ bytes, more than the limit of 1000")


DAMAGES = {
    "not json": ("meta.json", b"{not json"),
    "deep json": ("meta.json", b"[" * 100_000 + b"]" * 100_000),
    "not utf-8": ("meta.json", b"\xff\xfe\x00garbage"),
    "files not a list": ("meta.json", b'{"study": "table_rank_convergence", "files": "ranking.csv"}'),
    "study of wrong type": ("meta.json", None),
    "garbage table": ("ranking.csv", b"\x00\x01\x02\xff\xfe"),
    "table without columns": ("ranking.csv", b"a,b\n1,2\n"),
    "garbage parquet": ("per_case.parquet", b"PAR1 not really"),
    "folder for a table": ("ranking.csv", "FOLDER"),
    "missing table": ("rank_bootstrap.csv", "MISSING"),
    "non-utf-8 table": ("ranking.csv", b"task,ranking\n\xff\xfe,\xff\n"),
}


@pytest.mark.slow
@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_report_rebuild_on_a_damaged_folder_is_one_line(hostile_results, tmp_path, capsys, damage):
    import json

    folder = _copy(hostile_results, tmp_path)
    name, data = DAMAGES[damage]
    target = folder / name
    if data == "FOLDER":
        target.unlink()
        target.mkdir()
    elif data == "MISSING":
        target.unlink()
    elif data is None:
        meta = json.loads(target.read_text())
        meta["options"] = ["not", "a", "dict"]
        meta["warnings"] = 5
        target.write_text(json.dumps(meta))
    else:
        target.write_bytes(data)
    code = run(report.main, [str(folder), "--quiet"])
    one_line_error(capsys, code, re.escape(str(folder)))


# -- item 3: names in summary.md are escaped for Markdown ------------------------------------------------------------

@pytest.mark.slow
def test_summary_md_holds_no_raw_html_from_names(hostile_results):
    from robustness.results.escape import markdown

    summary = (hostile_results / "summary.md").read_text()
    assert "\\<script>alert(1)\\</script>" in summary and "\\<iframe src=javascript:alert(5)>" in summary
    own_figures = re.compile(r"^!\[[^\]]*\]\(figures/[\w.-]+\.png\)$", re.M)  # the report's own images
    outside_code = own_figures.sub("", re.sub(r"`[^`\n]*`", "", summary))
    assert not re.search(r"(?<!\\)<[A-Za-z/!?]", outside_code)  # no tag, comment or autolink can open
    assert not re.search(r"(?<!\\)\]\(", outside_code)  # no link or image can close
    assert markdown("a [x](javascript:alert(1)) <b> &amp; R&D >= [0.1, 0.2]") == \
        "a [x\\](javascript:alert(1)) \\<b> \\&amp; R&D >= [0.1, 0.2]"
    # a code span stays literal; an unmatched backtick cannot open one that swallows the escaping
    assert markdown("`<b>` and ` <i>") == "`<b>` and \\` \\<i>"
    # a name's own backslash cannot undo an escape
    assert markdown("\\<script>") == "\\\\\\<script>"
    assert markdown("a|b", cell=True) == "a\\|b" and markdown("line\nbreak") == "line break"


# -- item 4: CSV cells a spreadsheet would run are quoted, and read back as written ----------------------------------

@pytest.mark.slow
def test_no_csv_cell_starts_a_formula_and_names_round_trip(hostile_results):
    from robustness.results.study_result import read_table

    for path in sorted(hostile_results.glob("*.csv")):
        with open(path, newline="") as f:
            for row in csv.reader(f):
                for cell in row:
                    assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (path.name, cell)
    ranking = read_table(hostile_results / "ranking.csv")
    assert set(ranking.run) == set(ALGORITHMS) and set(ranking.task) == set(TASKS)
    assert set(read_table(hostile_results / "rank_bootstrap.csv").run) == set(ALGORITHMS)


def test_csv_quoting_round_trips_every_leading_character():
    from robustness.results.escape import csv_frame, csv_unquote

    names = ["=a", "+b", "-c", "@d", "\te", "'f", "''g", "'", "h", "-1", "", "x=y", "x\ry", "\rz", "'\\u000d"]
    frame = pd.DataFrame({"run": names, "value": np.arange(len(names), dtype=float) - 3})
    text = csv_frame(frame).to_csv(index=False)
    back = csv_unquote(pd.read_csv(io.StringIO(text), dtype={"run": str}, keep_default_na=False))
    assert back.run.tolist() == names and back.value.tolist() == frame.value.tolist()


# -- item 5, 6, 10, 14: NIfTI files cut short, holding NaN, with a spacing of 0, labels beyond int64 -----------------

@pytest.mark.parametrize("cut", [0.5, 0.9])
def test_a_truncated_gzipped_nifti_is_refused(tmp_path, cut):
    path = _write(tmp_path / "m.nii.gz", _mask((20, 30, 40)))
    data = path.read_bytes()
    path.write_bytes(data[:int(len(data) * cut)])
    with pytest.raises(InputError, match=r"m\.nii\.gz: .*(cut short|ends early)"):
        read_volume(path)


def test_a_truncated_raw_nifti_is_refused_from_its_header(tmp_path):
    path = _write(tmp_path / "m.nii", _mask((20, 30, 40)))
    path.write_bytes(path.read_bytes()[:12_000])
    for read in (read_grid, read_volume):
        with pytest.raises(InputError, match=r"m\.nii: the file ends early: 12000 bytes where its header announces "
                                             r"24352"):
            read(path)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("name", ["f.nii", "f.nii.gz"])
def test_nan_or_infinite_voxels_in_a_float_nifti_are_refused(tmp_path, value, name):
    a = _mask().astype(np.float32)
    a[0, 0, 0] = value
    path = _write(tmp_path / name, a)
    assert sitk.GetArrayFromImage(sitk.ReadImage(str(path)))[0, 0, 0] == 0  # what SimpleITK makes of it
    with pytest.raises(InputError, match=r"1 voxel\(s\) hold NaN or infinity"):
        read_volume(path)


def _nifti_with(tmp_path, name, offset, fmt, value):
    src = _write(tmp_path / "src.nii", _mask())
    data = bytearray(src.read_bytes())
    data[offset:offset + struct.calcsize(fmt)] = struct.pack(fmt, value)
    path = tmp_path / name
    path.write_bytes(gzip.compress(bytes(data)) if name.endswith(".gz") else bytes(data))
    return path


@pytest.mark.parametrize("spacing", [0.0, float("nan"), -0.7, float("inf")])
def test_a_nifti_spacing_that_is_not_a_positive_number_is_refused(tmp_path, spacing):
    path = _nifti_with(tmp_path, "s.nii.gz", 80, "<f", spacing)  # pixdim[1]: the x spacing
    for read in (read_grid, read_volume):
        with pytest.raises(InputError, match=r"s\.nii\.gz: voxel spacing pixdim\[1\] = "):
            read(path)


def test_float_labels_beyond_the_largest_label_are_not_read_as_negative(tmp_path):
    a = _mask().astype(np.float64)
    a[0, 0, 0] = 1e20
    with pytest.raises(InputError, match=r"a label of 1e\+20 is above the largest label read \(2147483647\)"):
        read_volume(_write(tmp_path / "big.nrrd", a))


def test_itk_errors_name_the_problem_not_an_itk_source_file(tmp_path, capfd):
    bad = tmp_path / "junk.nrrd"
    bad.write_bytes(b"NRRD0004\ntype: short\ndimension: 3\nsizes: 2 2 2\nencoding: raw\n\n\x00")
    short = tmp_path / "short.mha"
    short.write_bytes(b"NDims = 3\nDimSize = 2 2 2\nElementType = MET_SHORT\nElementDataFile = LOCAL\n\x00")
    for path, problem in ((bad, "require endian info"), (short, "data not read completely")):
        with pytest.raises(InputError) as err:
            read_volume(path)
        text = str(err.value)
        assert text.startswith(f"{path}: not a readable medical image (") and problem in text, text
        assert ".cxx" not in text and "\n" not in text and len(text) < 400, text
    assert capfd.readouterr().err == ""  # nothing raw on stderr


# -- item 7: a label asked for that no mask holds ---------------------------------------------------------------------

@pytest.mark.slow
def test_a_label_no_mask_holds_is_a_warning(tmp_path, capsys):
    data = tmp_path / "challenge"
    for rater in ("ann1", "ann2", "run1", "run2"):
        (data / rater).mkdir(parents=True)
        for case in range(3):
            a = _mask()
            a[2, 2, 2 + case % 2] = 2
            _write(data / rater / f"case{case}.nii.gz", a if rater != "run2" else np.roll(a, 1, axis=2))
    out = tmp_path / "out"
    assert run(rank_convergence.main, ["--layout", "raters", "--data", str(data), "--gold", "ann1,ann2", "--labels",
                                       "1,7", "--out", str(out), *FAST, "--no-figures"]) == 0
    err = capsys.readouterr().err
    assert "warning: label 7 is in no mask: every annotator and every run is empty for it on all 3 file(s)" in err
    assert "label 7 is in no mask" in (out / "summary.md").read_text()
    assert "label 1 is in no mask" not in err
    assert "check the label numbers given to --labels" in err
    # labels given as regions: the region is named, and the option the user gave
    assert run(rank_convergence.main, ["--layout", "raters", "--data", str(data), "--gold", "ann1,ann2", "--regions",
                                       "WT=1,2", "X=7", "--out", str(tmp_path / "regions"), *FAST, "--no-figures"]) == 0
    err = capsys.readouterr().err
    assert "warning: region X is in no mask: every annotator and every run is empty for it on all 3 file(s)" in err
    assert "check the labels of region X given to --regions" in err and "--labels" not in err
    assert "region WT is in no mask" not in err


# -- item 8, 9 (and 14): per-case tables: names are text, values bounded, messages bounded ----------------------------

def _table(tmp_path, rows, name="t.csv"):
    path = tmp_path / name
    path.write_text("case,algorithm,value\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n")
    return path


def test_per_case_names_are_text_never_inferred(tmp_path):
    from robustness.io.case_table import read_case_table

    algorithms = ["1", "1.0", "True", "TRUE", "NA", "None", "null", "nan", "3"]
    cases = ["1", "001", "3"]
    rows = [(c, a, round(0.1 + 0.01 * i + 0.1 * j, 3)) for i, a in enumerate(algorithms) for j, c in enumerate(cases)]
    table, notes = read_case_table(_table(tmp_path, rows))
    assert sorted(set(table.algorithm)) == sorted(algorithms) and sorted(set(table.case)) == sorted(cases)
    assert not notes and len(table) == len(rows)
    # the score column still reads R's NA as a missing score
    rows[0] = ("1", "1", "NA")
    missing, _ = read_case_table(_table(tmp_path, rows, "m.csv"), allow_missing=True)
    assert np.isnan(missing.value.iloc[0])


def test_per_case_names_stay_text_through_the_outputs(tmp_path):
    from robustness.results.study_result import read_table

    rows = [(c, a, round(0.2 + 0.05 * k + 0.01 * j, 3)) for k, a in enumerate(["1", "1.0", "NA"])
            for j, c in enumerate(["001", "1", "3", "04"])]
    out = tmp_path / "out"
    assert run(table_rank_convergence.main, ["--table", str(_table(tmp_path, rows)), "--out", str(out),
                                             "--rankings-only", *FAST, "--no-figures"]) == 0
    ranking = read_table(out / "ranking.csv")
    assert sorted(set(ranking.run)) == ["1", "1.0", "NA"]
    per_case = pd.read_parquet(out / "per_case.parquet")
    assert set(per_case.case) == {"001", "1", "3", "04"} and set(per_case.algorithm) == {"1", "1.0", "NA"}


def test_scores_near_the_float_maximum_are_refused(tmp_path, capsys):
    rows = [(c, a, v) for c in range(4) for a, v in (("A1", 1e308), ("A2", 1.7e308))]
    code = run(table_rank_convergence.main, ["--table", str(_table(tmp_path, rows)), "--out", str(tmp_path / "o"),
                                             *FAST])
    one_line_error(capsys, code, r"row 1: value 1e\+308 for algorithm A1, case 0 is beyond \+-1e\+150")


def test_a_huge_cell_or_a_newline_in_a_name_stays_one_short_line(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("case,algorithm,value\n1,A,0.5\n1,B," + "x" * 5_000_000 + "\n")
    code = run(table_rank_convergence.main, ["--table", str(path), "--out", str(tmp_path / "o"), *FAST])
    line = one_line_error(capsys, code, "row 2: value x{60}\\.\\.\\. \\(5000000 characters\\)")
    assert len(line) < 400
    rows = '1,"run\nB",0.5\n1,A,0.2\n2,A,0.3\n'
    path.write_text("case,algorithm,value\n" + rows)
    code = run(table_rank_convergence.main, ["--table", str(path), "--out", str(tmp_path / "o"), *FAST])
    one_line_error(capsys, code, r"row 1: algorithm run\\nB holds a control character")


def test_unit_naming_the_case_column_is_refused_when_parsed(tmp_path, capsys):
    rows = [(c, a, 0.1 * k + 0.01 * c) for c in range(4) for k, a in enumerate("AB")]
    code = run(table_rank_convergence.main, ["--table", str(_table(tmp_path, rows)), "--unit", "case",
                                             "--out", str(tmp_path / "o"), *FAST])
    one_line_error(capsys, code, "--unit 'case' is also --case: .*leave --unit out")
    assert not (tmp_path / "o").exists()


# -- item 12, 13: voxel and size bounds, options that overflowed, mathtext ---------------------------------------------

def test_a_header_announcing_too_many_voxels_is_refused_before_allocating(tmp_path):
    folder = tmp_path / "ann1"
    folder.mkdir()
    (folder / "m.raw").write_bytes(b"\0" * 1000)
    header = _detached(folder, "m.mhd", "mha", "m.raw")
    header.write_text(header.read_text().replace("DimSize = 6 5 4", "DimSize = 2000 2000 2000"))
    with pytest.raises(InputError, match=r"image of 2000 x 2000 x 2000 voxels \(8000000000\) is larger than the "
                                         r"limit of 536870912 voxels"):
        read_volume(header)
    src = bytearray(_write(tmp_path / "src.nii", _mask()).read_bytes())
    src[42:48] = struct.pack("<3h", 2000, 2000, 2000)
    (tmp_path / "big.nii").write_bytes(bytes(src))
    with pytest.raises(InputError, match="larger than the limit of 536870912 voxels"):
        read_grid(tmp_path / "big.nii")


@pytest.mark.parametrize("argv,match", [
    (["--synthetic-depth", "99999999999999999999"], r"--synthetic-depth 99999999999999999999: at most "
                                                     r"4096 slices"),
    (["--synthetic-depth", "45", "--synthetic-size", "realistic"], "at most 44 slices"),
    (["--synthetic-depth", "3", "--synthetic-spacing", "1e308,1e308,1e308"], "each voxel size must lie from 0.001 to "
                                                                             "1000 mm"),
])
def test_synthetic_volume_options_are_bounded_when_parsed(tmp_path, capsys, argv, match):
    code = run(rank_convergence.main, [*argv, "--out", str(tmp_path / "o"), *FAST])
    one_line_error(capsys, code, match)
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_names_are_drawn_as_text_never_mathtext(hostile_results):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from robustness.reporting.plotting import style

    assert (hostile_results / "figures" / "fig_17_ranking_heatmap.png").stat().st_size > 10_000
    with style():
        fig, ax = plt.subplots()
        ax.set_title("$x^{$")
        ax.set_yticks([0], ["$\\foo{$"])
        fig.savefig(io.BytesIO(), format="png")  # mathtext would raise a ValueError here
        assert ax.get_title() == "$x^{$"
    plt.close(fig)


# -- found by an independent attack on the fixes above: each reproduced first ----------------------------------------

@pytest.mark.parametrize("header", [
    # a lone carriage return ends a line for ITK's NRRD reader: the field hides behind a comment or another field
    "NRRD0004\ntype: uchar\ndimension: 3\nsizes: 6 5 4\nencoding: raw\n# c\rdata file: {target}\n\n",
    "NRRD0004\rtype: uchar\rdimension: 3\rsizes: 6 5 4\rencoding: raw\rdata file: {target}\r\r",
    "NRRD0004\ntype: uchar\ndimension: 3\nsizes: 6 5 4\nencoding: raw\nDATA FILE :\t{target}\n\n",
])
def test_nrrd_line_breaks_and_spellings_hide_no_data_file(tmp_path, outside, header):
    path = tmp_path / "m.nhdr"
    path.write_bytes(header.format(target=outside).encode())
    text = _refusal(path)
    assert text.startswith(f"{path}: data file ") and "outside the header's folder" in text, text


@pytest.mark.parametrize("line", ["ElementDataFile: {target}", "ElementDataFile:{target}", "elementdatafile = {target}"])
def test_metaimage_colon_separator_hides_no_data_file(tmp_path, outside, line):
    path = tmp_path / "m.mhd"
    path.write_text("ObjectType = Image\nNDims = 3\nDimSize = 6 5 4\nElementType = MET_UCHAR\n"
                    + line.format(target=outside) + "\nElementDataFile = LOCAL\n")
    text = _refusal(path)
    assert text.startswith(f"{path}: ElementDataFile ") and "outside the header's folder" in text, text


@pytest.mark.parametrize("target", [".", "./"])
def test_a_data_file_naming_the_folder_itself_is_one_line(tmp_path, target):
    path = _detached(tmp_path, "m.nhdr", "nrrd", target)
    assert "names a folder, not a data file" in _refusal(path)


@pytest.mark.slow
def test_a_lock_file_that_is_a_fifo_is_one_line(hostile_results, tmp_path, capsys):
    folder = _copy(hostile_results, tmp_path)
    (folder / ".lock").unlink(missing_ok=True)
    os.mkfifo(folder / ".lock")
    code = run(report.main, [str(folder), "--quiet"])
    one_line_error(capsys, code, r"\.lock: the lock file is not a regular file \(a FIFO\); remove it")


@pytest.mark.slow
def test_a_folder_where_the_report_goes_is_one_line(hostile_results, tmp_path, capsys):
    folder = _copy(hostile_results, tmp_path)
    (folder / "summary.md").unlink()
    (folder / "summary.md").mkdir()
    code = run(report.main, [str(folder), "--quiet"])
    one_line_error(capsys, code, r"summary\.md: is a folder where a result file goes")


@pytest.mark.slow
def test_a_table_with_a_planted_giant_header_is_refused_before_parsing(hostile_results, tmp_path, capsys):
    folder = _copy(hostile_results, tmp_path)
    (folder / "ranking.csv").write_text(",".join(f"c{k}" for k in range(300_000)) + "\n")
    code = run(report.main, [str(folder), "--quiet"])
    one_line_error(capsys, code, r"ranking\.csv: damaged table \(300000 columns, more than the 4096 a study writes\)")


def test_an_escaped_backtick_in_a_name_opens_no_html(tmp_path):
    from robustness.results.escape import markdown

    name = "\\`<img src=x onerror=alert(1)>`"
    text = markdown(f"| {name} |")
    # CommonMark: the name's backslash is now itself escaped, so the backticks make a code span around the tag
    assert text == "| \\\\`<img src=x onerror=alert(1)>` |"


@pytest.mark.parametrize("name", ["X\rY", "X\r=cmd|' /C calc'!A0", "tab\there", "nul\x00"])
def test_per_case_names_with_control_characters_are_refused(tmp_path, capsys, name):
    path = tmp_path / "t.csv"
    pd.DataFrame({"case": [1, 1, 2, 2], "algorithm": ["A", name, "A", name],
                  "value": [0.1, 0.2, 0.3, 0.4]}).to_csv(path, index=False, quoting=csv.QUOTE_NONNUMERIC)
    code = run(table_rank_convergence.main, ["--table", str(path), "--out", str(tmp_path / "o"), *FAST])
    one_line_error(capsys, code, r"t\.csv: row 2: algorithm .* holds a control character")
    assert not (tmp_path / "o").exists()


def test_a_newline_in_a_folder_name_does_not_split_the_error_line(tmp_path, capsys):
    data = tmp_path / "challenge"
    for rater in ("ann1", "ann2", "run1", "run\nB"):
        (data / rater).mkdir(parents=True)
        _write(data / rater / "case1.nii.gz", _mask())
    code = run(rank_convergence.main, ["--layout", "raters", "--data", str(data), "--gold", "ann1,ann2",
                                       "--out", str(tmp_path / "out"), *FAST, "--no-figures"])
    one_line_error(capsys, code, r"run\\nB: run name 'run\\nB' holds a control character")
