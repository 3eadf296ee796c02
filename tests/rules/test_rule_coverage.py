"""Every rule R1–R78 and every worked example T1–T24 is cited by a test, and docs/rules.md shows
the current table; its rule index has one line per rule and ruling, and every id cited in the code
can be looked up there."""

from __future__ import annotations

from tests.support.rule_coverage import BEGIN, DOC, END, RANGES, citations, cited_ids, index_ids, table


def test_every_rule_and_worked_example_is_cited_by_a_test() -> None:
    cited = citations()
    missing = [f"{k}{n}" for k in "RT" for n in range(1, RANGES[k] + 1) if f"{k}{n}" not in cited]
    assert not missing, f"no test cites {', '.join(missing)}"


def test_docs_rules_table_is_current() -> None:
    text = DOC.read_text(encoding="utf-8")
    current = text.partition(BEGIN)[2].partition(END)[0].strip()
    assert current == table(), "docs/rules.md is stale: run python -m tests.support.rule_coverage --write"


def test_the_rule_index_has_one_line_per_rule_and_ruling_in_order() -> None:
    ids = index_ids()
    expected = [f"{k}{n}" for k in "RA" for n in range(1, RANGES[k] + 1)]
    missing = [i for i in expected if i not in ids]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    unknown = [i for i in ids if i not in expected]
    assert not (missing or twice or unknown), f"rule index: missing {missing}, twice {twice}, unknown {unknown}"
    assert ids == expected, "the rule index is out of order: R1–R78, then A1–A44"


def test_every_rule_and_ruling_cited_in_the_code_is_in_the_rule_index() -> None:
    cited = cited_ids()
    assert {"R27", "R51", "A15", "A31"} <= set(cited)  # the scan finds messages, docstrings and test names
    known = set(index_ids())
    unknown = {rid: where for rid, where in cited.items() if rid not in known}
    assert not unknown, "cited but not in the rule index of docs/rules.md: " + "; ".join(
        f"{rid} at {', '.join(where[:3])}" for rid, where in sorted(unknown.items()))
