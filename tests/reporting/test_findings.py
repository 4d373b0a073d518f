"""Every finding's template: declared for a known claim, fillable from a verdicts row, and called by a form it has."""

import ast
import dataclasses
import math
import string
from pathlib import Path

import pytest

from robustness.reporting.findings import PROSE, fields_of, phrase
from robustness.results.claims import CLAIMS
from robustness.results.verdicts import Verdict

ROOT = Path(__file__).resolve().parents[2]
ROW = {f.name for f in dataclasses.fields(Verdict)}


def test_every_template_is_for_a_declared_claim():
    assert set(PROSE) <= set(CLAIMS)


@pytest.mark.parametrize(("claim", "form"), [(c, f) for c, forms in PROSE.items() for f in forms])
def test_every_template_fills_from_a_row_and_its_words(claim, form):
    row = dataclasses.asdict(Verdict(claim, statement=form, subject=("run-a", "run-b"), value=0.5, low=0.25,
                                     high=0.75, level=0.95, count=3, total=7, table="t.csv"))
    numeric = {name for _, name, spec, _ in string.Formatter().parse(PROSE[claim][form]) if name and spec}
    words = {name: 0.125 if name in numeric else f"<{name}>" for name in fields_of(claim, form) - ROW}
    text = phrase(claim, form, row, **words)
    assert "{" not in text and "}" not in text and "nan" not in text
    assert all(f"<{name}>" in text for name in words if name not in numeric)


def test_a_form_or_field_it_does_not_have_is_refused():
    with pytest.raises(KeyError, match="has no form 'won'"):
        phrase("best_is_best", "won", {"subject": ("a",), "value": 0.5})
    with pytest.raises(KeyError, match=r"best_is_best \(tied\) needs leaders, value"):
        phrase("best_is_best", "tied")
    assert phrase("best_is_best", "best", {"subject": ("a",), "value": math.pi}).count("3.14") == 1


def test_every_call_names_a_declared_form_and_every_form_is_called():
    calls = []
    for path in (ROOT / "robustness" / "reporting").rglob("*.py"):  # phrase is the reporting layer's
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "phrase":
                claim, form = node.args[:2]
                forms = [form.body, form.orelse] if isinstance(form, ast.IfExp) else [form]  # a choice of two
                calls += [(path.name, getattr(claim, "value", None), getattr(f, "value", None)) for f in forms]
    assert [c for c in calls if c[1] not in PROSE or c[2] not in PROSE[c[1]]] == []
    used = {(claim, form) for _, claim, form in calls}
    assert [(c, f) for c, forms in PROSE.items() for f in forms if (c, f) not in used] == []  # no template unused
