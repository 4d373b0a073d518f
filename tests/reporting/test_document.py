"""The report's HTML page: its texts are the Markdown file's, rendered by markdown-it, with the folder's files linked."""

import re
from html.parser import HTMLParser

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from robustness.reporting.document import Report

NAMES = st.lists(st.sampled_from([*"ab1 *_~[]()!<>&\\#-+=.|`'\"", "<script>", "1. ", "ranking.csv"]), min_size=1,
                 max_size=12).map("".join).filter(lambda t: "**" not in t and "`" not in t and t.strip())


class _Texts(HTMLParser):
    """The text of every element named in ``tags``, in order, markup removed and entities read."""

    def __init__(self, tags):
        super().__init__()
        self.tags, self.depth, self.texts = set(tags), 0, []

    def handle_starttag(self, tag, attrs):
        if tag in self.tags:
            self.depth += 1
            if self.depth == 1:
                self.texts.append("")

    def handle_endtag(self, tag):
        if tag in self.tags:
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.texts[-1] += data


def texts(page: str, *tags: str) -> list[str]:
    """Each element's text as a browser shows it (runs of blanks as one space, none at either end)."""
    parser = _Texts(tags)
    parser.feed(page)
    return [seen(t) for t in parser.texts]


def seen(text: str) -> str:
    return " ".join(text.split())


@settings(max_examples=100, deadline=None)
@given(NAMES)
def test_a_name_reads_as_written_in_every_place(tmp_path_factory, name):
    root = tmp_path_factory.mktemp("report")
    r = Report(f"Title {name}").heading(f"Section {name}").paragraph(f"run {name} is first")
    r.bullets([f"{name} second"]).table(pd.DataFrame({"run": [name], "score": [0.5]}), caption=f"of {name}")
    page = r.to_html(root)
    assert texts(page, "h1") == [seen(f"Title {name}")] and texts(page, "h2") == [seen(f"Section {name}")]
    assert texts(page, "td")[0] == seen(name) and texts(page, "li") == [seen(f"{name} second")]
    assert seen(f"run {name} is first") in texts(page, "p") and seen(f"of {name}") in texts(page, "p")
    assert "<script>" not in page.replace("<script&gt;", "")


def test_the_page_says_what_the_markdown_says(tmp_path):
    r = Report("A _b_ report").heading("One").paragraph("see `ranking.csv`, **this** and 1. the <i>x</i> ~y~")
    r.bullets(["- a", "*b*"]).table(pd.DataFrame({"run": ["_a_", "c|d"], "x": [1.0, 2.5]}))
    page = r.to_html(tmp_path)
    other = MarkdownIt("commonmark", {"html": False}).enable("table").render(r.to_markdown())
    for tags in (("h1",), ("h2",), ("p",), ("li",), ("td",), ("th",)):
        assert texts(page, *tags) == texts(other, *tags), tags
    assert "<strong>this</strong>" in page and "<em>" not in page


def test_file_names_of_the_folder_link_to_the_files(tmp_path):
    (tmp_path / "ranking.csv").write_text("run\n")
    r = Report("T").paragraph("ranking.csv, `ranking.csv`, absent.csv, summary.md, notranking.csvx, a/ranking.csv")
    r.table(pd.DataFrame({"file": ["ranking.csv", "absent.csv"]}))
    page = r.to_html(tmp_path)
    para = re.search(r"<p>(.*?)</p>", page).group(1)
    assert para == ('<a href="ranking.csv">ranking.csv</a>, <a href="ranking.csv"><code>ranking.csv</code></a>, '
                    'absent.csv, <a href="summary.md">summary.md</a>, notranking.csvx, a/ranking.csv')
    assert '<td><a href="ranking.csv">ranking.csv</a></td>' in page and "<td>absent.csv</td>" in page
    assert "<h1>T</h1>" in page
