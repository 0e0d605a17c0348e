"""The spintax limits: one problem naming each limit, the same from validate, preview and
render; variants counted (never listed) up to the cap; problems listed up to MAX_PROBLEMS."""

from __future__ import annotations

import pytest

from outreach import spintax
from outreach.spintax import (
    MAX_ALTERNATIVES,
    MAX_NESTING,
    MAX_PROBLEMS,
    MAX_SOURCE_CHARS,
    MAX_VARIABLES,
    VARIANT_COUNT_CAP,
    TemplateError,
)
from outreach.template_preview import preview_template

OVER_THE_LIMITS = [
    ("x" * (MAX_SOURCE_CHARS + 1), "at most 60,000 characters (this text has 60,001)"),
    ("{a|b}" * 420_000, "at most 60,000 characters (this text has 2,100,000)"),
    (
        "{" * (MAX_NESTING + 1) + "A|B" + "}" * (MAX_NESTING + 1),
        "spintax nested more than 10 levels deep at line 1, column 11",
    ),
    ("{a|b}" * 501, "more than 1,000 spintax alternatives (from line 1, column 2502)"),
    (
        "{" + "a|" * MAX_ALTERNATIVES + "b}",
        "more than 1,000 spintax alternatives (from line 1, column 2002)",
    ),
    ("{{cui}} " * (MAX_VARIABLES + 1), "more than 200 variables (from line 1, column 1601)"),
]


@pytest.mark.parametrize(("source", "problem"), OVER_THE_LIMITS)
def test_each_limit_is_one_problem_naming_it(source, problem):
    assert spintax.validate(source, channel="EMAIL_WARM") == [problem]
    with pytest.raises(TemplateError) as refused:
        spintax.render(source, {}, seed="x")
    assert refused.value.problems == [problem]
    shown = preview_template(source, "EMAIL_WARM")
    assert (shown.problems, shown.variants) == ([problem], [])


def test_just_under_the_limits_is_fine():
    assert spintax.validate("{a|b}" * 500, channel="EMAIL_WARM") == []
    assert spintax.validate("{{cui}} " * MAX_VARIABLES, channel="EMAIL_WARM") == []
    nested = "{" * MAX_NESTING + "A|B" + "}" * MAX_NESTING
    assert spintax.validate(nested, channel="EMAIL_WARM") == []
    assert spintax.validate("x" * MAX_SOURCE_CHARS, channel="EMAIL_WARM") == [
        "the longest variant is 60000 characters; EMAIL_WARM allows at most 50000"
    ]


def test_outside_braces_a_run_of_bars_is_one_piece_of_text():
    assert spintax.render("a" + "|" * 10_000 + "b", {}, seed="x").text == "a" + "|" * 10_000 + "b"


def test_problems_are_listed_up_to_the_maximum_then_one_line_says_there_are_more():
    problems = spintax.validate("}" * 1_000, channel="WHATSAPP")
    assert len(problems) == MAX_PROBLEMS + 1
    assert problems[0] == "unexpected '}' at line 1, column 1"
    assert problems[-1] == "… and more problems: fix these first"
    unknown = spintax.validate("{{nope}} " * 100, channel="WHATSAPP")
    assert len(unknown) == MAX_PROBLEMS + 1 and unknown[-1].startswith("… and more")


def test_variants_are_counted_up_to_the_cap_and_more_is_said():
    assert spintax.count_variants("{a|b}" * 29) == 2**29
    assert spintax.count_variants("{a|b|c|d|e|f|g|h|i|j}" * 100) == VARIANT_COUNT_CAP + 1
    result = spintax.preview("{a|b|c|d|e|f|g|h|i|j}" * 100, {}, n=3)
    assert (result.total, result.more, len(result.variants)) == (VARIANT_COUNT_CAP, True, 3)
    exact = spintax.preview("{a|b}" * 29, {}, n=3)
    assert (exact.total, exact.more) == (2**29, False)


def test_a_preview_of_a_long_template_samples_instead_of_listing_every_variant():
    long_text = "x" * 5_000
    source = "{a|b|c|d|e|f|g|h|i|j}" * 3 + long_text  # 1,000 variants of 5,000 characters
    result = spintax.preview(source, {}, n=4)
    assert result.total == 1_000
    assert len(result.variants) == 4 == len(set(result.variants))
    assert all(text.endswith(long_text) for text in result.variants)


def test_a_preview_of_long_variants_stops_at_the_text_budget():
    source = "{a|b|c|d|e|f|g|h|i|j}" * 9 + "x" * 55_000  # a billion variants of 55,009
    result = spintax.preview(source, {}, n=50)
    assert len(result.variants) == spintax.PREVIEW_TEXT_BUDGET // 55_009 == 3
    single = spintax.preview("x" * 59_000 + "{a|b}" * 100, {}, n=5)
    assert len(single.variants) == 3  # each 59,100: a fourth would pass 200,000
    alone = spintax.preview("y" * 60_000, {}, n=5)
    assert alone.variants == ["y" * 60_000]
