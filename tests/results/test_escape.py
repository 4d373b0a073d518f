"""Markdown escaping held against a CommonMark parser: every name reads as written, in every place a report puts it."""

import html
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from robustness.results.escape import markdown, markdown_cell

#: A second parser, set up apart from the report's: CommonMark, GFM's tables and strikethrough, bare URLs with a
#: scheme and bare e-mail addresses as links (linkify-it; its links without a scheme are off: it would link any
#: domain-like word, where GFM links only ``www.`` ones, held by the hand-made cases below), raw HTML as text.
PARSER = MarkdownIt("commonmark", {"html": False, "linkify": True}).enable(["table", "strikethrough", "linkify"])
PARSER.linkify.set({"fuzzy_link": False})

#: Characters and pieces that are markup somewhere in CommonMark or GFM, with letters, digits and blanks.
PIECES = st.sampled_from([*"ab1é *_~[]()!<>&\\#-+=.):;|{}\"'@", "&amp;", "&#65;", "http://x", "1.", "---", "    ",
                          "\t", "p_best", "www.x.co", "mailto:", "1@b.co", "\x85", "\xa0", "[ ]", "--", "nsd@1.5"])
#: Texts without the package's own markup (``**`` and code spans render by design).
TEXTS = st.lists(PIECES, min_size=1, max_size=14).map("".join).filter(lambda t: "**" not in t and t.strip())


#: CommonMark's whitespace (its spec: the Unicode space separators, tab, line feed, form feed, carriage return).
BLANKS = "".join(c for c in map(chr, range(0x3001)) if unicodedata.category(c) == "Zs") + "\t\n\f\r"


def shown(text: str) -> str:
    """What a reader should see: the text itself, escaped for HTML as markdown-it escapes text."""
    return html.escape(text.strip(BLANKS), quote=False).replace('"', "&quot;")


@settings(max_examples=250, deadline=None)
@given(TEXTS)
def test_a_paragraph_shows_its_text(text):
    assert PARSER.render(markdown(text)) == f"<p>{shown(text)}</p>\n"


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_a_bullet_and_a_heading_show_their_text(text):
    assert PARSER.render(f"- {markdown(text)}") == f"<ul>\n<li>{shown(text)}</li>\n</ul>\n"
    assert PARSER.render(f"## {markdown(text)}") == f"<h2>{shown(text)}</h2>\n"


@settings(max_examples=300, deadline=None)
@given(TEXTS, TEXTS)
def test_a_table_cell_shows_its_text(first, second):
    cells = [markdown_cell(v) for v in (first, second)]
    page = PARSER.render(f"| a | b |\n|---|---|\n| {cells[0]} | {cells[1]} |\n")
    body = page[page.index("<tbody>"):]
    assert body == f"<tbody>\n<tr>\n<td>{shown(first)}</td>\n<td>{shown(second)}</td>\n</tr>\n" \
                   "</tbody>\n</table>\n"


@pytest.mark.parametrize(("text", "escaped"), [
    ("_run_ and *b* and ~c~", "\\_run\\_ and \\*b\\* and \\~c\\~"),
    ("p_best a__b", "p_best a__b"),  # inside a word, ``_`` opens nothing
    ("1. first", "1\\. first"), ("2) second", "2\\) second"), ("# one", "\\# one"), ("> quoted", "\\> quoted"),
    ("- item", "\\- item"), ("+ item", "\\+ item"), ("-0.5 below", "-0.5 below"), ("- - -", "\\- - -"),
    ("    code?", "code?"), ("Team #", "Team \\#"), ("#5 wins", "\\#5 wins"), ("~~~", "\\~\\~\\~"),
    ("**kept** bold", "**kept** bold"), ("a ~ b, 2 * 3, x _ y", "a ~ b, 2 * 3, x _ y"),  # blanks on both sides
    ("* item", "\\* item"), ("~a", "\\~a"), ("a~", "a\\~"),
    # found by an independent check with npm's marked (GFM): a bare link took the next escape's backslash, which left
    # the tag raw; an e-mail autolink needs no letter after its <; NEL is not a blank; "- --" is a thematic break
    ("http://x.y<img src=x>", "http\\://x.y\\<img src=x>"), ("www.x.com", "www\\.x.com"), ("<1@b.co>", "\\<1\\@b.co>"),
    ("a@b.co, nsd@1.5, nsd@2", "a\\@b.co, nsd\\@1.5, nsd@2"), ("L1 <= 40", "L1 <= 40"),
    ("\x85*\x85", "\x85\\*\x85"), ("--", "\\--"), ("[ ] task", "\\[ ] task"), ("xhttp://a", "xhttp\\://a"), ("a\xa0", "a"),
])
def test_hand_made_marks(text, escaped):
    assert markdown(text) == escaped


def test_a_cell_escapes_stars_the_prose_keeps():
    assert markdown_cell("**x**") == "\\*\\*x\\*\\*" and markdown("**x**") == "**x**"
    assert PARSER.renderInline(markdown("**x** _y_")) == "<strong>x</strong> _y_"


def _quoted_cell_by_cell(value):
    """The CSV rule written out for one cell: text a spreadsheet would run changes; text holding a direction control
    or a carriage return is coded."""
    from robustness.errors import DIRECTION_CONTROLS
    from robustness.results.escape import FORMULA_STARTS

    if not isinstance(value, str):
        return value
    if DIRECTION_CONTROLS.search(value) or "\r" in value:
        return "'\\" + value.replace("\\", "\\\\").replace("\u202e", "\\u202e").replace("\r", "\\u000d")
    return "'" + value if value.startswith(FORMULA_STARTS) else value


@pytest.mark.parametrize("dtype", [object, "str"])
def test_csv_quoting_checks_each_distinct_text_once_and_changes_what_a_cell_by_cell_rule_does(dtype):
    """Columns of repeated text, text mixed with booleans, numbers, None and lists, hits in the index and the names:
    the quoted frame is the one the rule applied to every cell gives (a categorical column's too, written as text),
    each column keeps its dtype (an object column's None stays None), and a frame without a hit is returned as is."""
    import numpy as np
    import pandas as pd

    from robustness.results.escape import csv_frame, csv_unquote

    runs = np.array(["a", "=b", None, "-1", "d\u202ee", "f\rg"], dtype=object)[np.arange(600) % 6]
    frame = pd.DataFrame({"run": pd.Series(runs, dtype=dtype), "plain": pd.Series(["x", "y"] * 300, dtype=dtype),
                          "mixed": [True, None, 1.5, "+x", [1, 2], "y"] * 100, "=name": np.arange(600.0),
                          "kind": pd.Categorical(["@k", "k"] * 300)})
    frame.index = pd.Index(["@i", "j"] * 300, dtype=dtype)  # a label repeated
    assert frame.run.dtype == dtype and frame.plain.dtype == dtype
    got = csv_frame(frame)
    for column in ("run", "plain", "mixed", "kind"):
        want = [_quoted_cell_by_cell(v) for v in frame[column]]
        assert [v if isinstance(v, list) or v == v else "nan" for v in got[column]] == \
               [v if isinstance(v, list) or v == v else "nan" for v in want], column
    assert got.run.dtype == frame.run.dtype and got.mixed.dtype == object and got.kind.dtype == object
    assert (got.run.tolist()[2] is None) == (dtype is object)
    assert list(got.columns) == ["run", "plain", "mixed", "'=name", "kind"]
    assert list(got.index) == [_quoted_cell_by_cell(v) for v in frame.index]
    back = csv_unquote(got)
    assert back.run.dtype == frame.run.dtype and back.run.equals(frame.run)
    untouched = frame[["plain"]].set_axis(range(600))
    assert csv_frame(untouched) is untouched and csv_unquote(untouched) is untouched


def test_csv_quoting_reaches_repeated_column_names_multiindex_levels_and_arrow_text():
    """Two columns of one name, a MultiIndex of columns and of rows (each level's text), a pyarrow string column:
    quoted like any other text, read back as written, the index's name kept."""
    import pandas as pd
    import pyarrow as pa

    from robustness.results.escape import csv_frame, csv_unquote

    twice = pd.DataFrame([["=a", "b"], ["c", "@d"]], columns=["run", "run"])
    assert csv_frame(twice).to_numpy().tolist() == [["'=a", "b"], ["c", "'@d"]]
    levels = pd.DataFrame([[1, 2]], columns=pd.MultiIndex.from_tuples([("=x", "y"), ("z", "+w")]),
                          index=pd.MultiIndex.from_tuples([("-1", 2)], names=["case", "k"]))
    got = csv_frame(levels)
    assert got.columns.tolist() == [("'=x", "y"), ("z", "'+w")] and got.index.tolist() == [("'-1", 2)]
    assert got.index.names == ["case", "k"] and csv_unquote(got).equals(levels)
    arrow = pd.DataFrame({"run": pd.array(["=a", "b"], dtype=pd.ArrowDtype(pa.string()))},
                         index=pd.Index(["=i", "j"], name="case"))
    got = csv_frame(arrow)
    assert got.run.tolist() == ["'=a", "b"] and got.run.dtype == arrow.run.dtype
    assert got.index.tolist() == ["'=i", "j"] and got.index.name == "case"
    assert csv_unquote(got).equals(arrow)


def test_csv_quoting_of_labels_names_unused_levels_and_coded_columns():
    """A MultiIndex level whose unquoted values meet values it holds stays whole; a level's unused values are not
    read (nothing to quote: the frame itself); the index's and the columns' names are quoted like labels; pyarrow
    dictionary and sparse text columns are text; a pyarrow string index keeps its dtype."""
    import pandas as pd
    import pyarrow as pa

    from robustness.results.escape import csv_frame, csv_unquote

    meeting = pd.DataFrame([[1, 2]], columns=pd.MultiIndex.from_tuples([("'=a", "x"), ("=a", "y")]))
    assert csv_unquote(meeting).columns.tolist() == [("=a", "x"), ("=a", "y")]
    whole = pd.DataFrame({"v": range(4)}, index=pd.MultiIndex.from_product([["=a", "b"], ["x", "y"]]))
    part = whole.loc[["b"]]
    assert csv_frame(part) is part and csv_frame(whole).index.get_level_values(0).tolist() == ["'=a"] * 2 + ["b"] * 2
    named = pd.DataFrame({"v": ["=x"]}, index=pd.Index(["i"], name='=HYPERLINK("x")'))
    named.columns.name = "@c"
    got = csv_frame(named)
    assert got.index.name == "'=HYPERLINK(\"x\")" and got.columns.name == "'@c" and got.v.tolist() == ["'=x"]
    back = csv_unquote(got)
    assert back.index.name == named.index.name and back.columns.name == "@c" and back.v.tolist() == ["=x"]
    coded = pd.DataFrame({"d": pd.array(["=a", "b"], dtype=pd.ArrowDtype(pa.dictionary(pa.int32(), pa.string()))),
                          "s": pd.arrays.SparseArray(["=a", "b"], dtype=pd.SparseDtype(object, "b"))},
                         index=pd.Index(["=i", "j"], dtype=pd.ArrowDtype(pa.string())))
    got = csv_frame(coded)
    assert got.d.tolist() == ["'=a", "b"] and got.s.tolist() == ["'=a", "b"]
    assert got.index.tolist() == ["'=i", "j"] and got.index.dtype == coded.index.dtype
