"""Spintax syntax: the tree of a template, its syntax problems, and the limits on its size.

The limits bound the work one template can cause (a request's preview, a save, a render):
past MAX_SOURCE_CHARS nothing is parsed; parsing stops past MAX_NESTING levels,
MAX_ALTERNATIVES alternatives, MAX_VARIABLES variables or MAX_PROBLEMS problems; variants
are counted (never listed) up to VARIANT_COUNT_CAP. This is the one place these numbers
live: the forms and the API use MAX_SOURCE_CHARS as their fields' max_length, and
`outreach.spintax.validate` (hence TemplateVersion.clean), preview and render refuse what
passes any of them. See outreach.spintax for the syntax itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from django.utils.formats import number_format
from django.utils.translation import get_language, gettext_noop
from django.utils.translation import gettext as _

# A warm email's longest variant may be 50,000 characters: its spintax needs some room more.
MAX_SOURCE_CHARS = 60_000
MAX_NESTING = 10  # {a|{b|{c|…}}}: deeper is refused (it also keeps the recursion bounded)
MAX_ALTERNATIVES = 1_000  # in the whole template, every choice's alternatives together
MAX_VARIABLES = 200  # {{name}}s in the whole template
MAX_PROBLEMS = 20  # spelled out; one last line says there are more
# Variants are counted up to this many; a larger count is reported as "more than" it.
VARIANT_COUNT_CAP = 1_000_000_000

_VAR_RE = re.compile(r"\{\{\s*([a-z_][a-z0-9_]*)\s*(?:\|([^{}]*))?\}\}")
_PLAIN_RE = re.compile(r"[^{}|]*")
_TOP_PLAIN_RE = re.compile(r"[^{}]*")  # outside all braces a '|' is text


class TemplateError(ValueError):
    """A template that cannot be rendered; ``problems`` says why, in plain words."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)


@dataclass(frozen=True)
class Text:
    value: str


@dataclass(frozen=True)
class Var:
    name: str
    fallback: str  # "" when there is none
    pos: int


@dataclass(frozen=True)
class Choice:
    alternatives: tuple[tuple[Node, ...], ...]
    pos: int


Node = Text | Var | Choice
Seq = tuple[Node, ...]


class _Stop(Exception):
    """Parsing stops: a limit is passed (the message says which; it comes first), or there
    are more problems than MAX_PROBLEMS (the message comes last)."""

    def __init__(self, message: str, *, first: bool = True) -> None:
        super().__init__(message)
        self.message = message
        self.first = first


def number(value: int) -> str:
    """A count as the reader writes it (60,000 / 60.000)."""
    return number_format(value, force_grouping=True)


def where(source: str, pos: int) -> str:
    """1-based line and column of an index, the one position format of every message."""
    line = source.count("\n", 0, pos) + 1
    column = pos - source.rfind("\n", 0, pos)
    return _("line %(line)d, column %(column)d") % {"line": line, "column": column}


def too_long(length: int) -> str:
    """The one message of a text over MAX_SOURCE_CHARS."""
    return _("at most %(limit)s characters (this text has %(length)s)") % {
        "limit": number(MAX_SOURCE_CHARS),
        "length": number(length),
    }


def more_problems() -> str:
    """The last line of a list cut at MAX_PROBLEMS."""
    return _("… and more problems: fix these first")


class _Parser:
    """Recursive descent that records each problem and carries on, so validate sees them
    all; it stops at a limit or at the problem after MAX_PROBLEMS (a position costs a scan
    of the text before it), so its work is bounded whatever the text."""

    def __init__(self, source: str) -> None:
        self.src = source
        self.i = 0
        self.depth = 0
        self.alternatives = 0
        self.variables = 0
        self.problems: list[str] = []

    def problem(self, message: str, pos: int, shown: str = "") -> None:
        """Record a problem; `message` is marked with gettext_noop where it is written."""
        if len(self.problems) >= MAX_PROBLEMS:
            raise _Stop(more_problems(), first=False)
        self.problems.append(_(message) % {"where": where(self.src, pos), "shown": shown})

    def sequence(self) -> Seq:
        nodes: list[Node] = []
        while self.i < len(self.src):
            c = self.src[self.i]
            if c in "|}" and self.depth:
                break
            if c == "{":
                var = _VAR_RE.match(self.src, self.i)
                if var:
                    self.variables += 1
                    if self.variables > MAX_VARIABLES:
                        message = gettext_noop("more than %(limit)s variables (from %(where)s)")
                        raise _Stop(self.over(message, MAX_VARIABLES))
                    nodes.append(Var(var[1], (var[2] or "").strip(), self.i))
                    self.i = var.end()
                else:
                    nodes.append(self.choice())
            elif c == "}":
                self.problem(gettext_noop("unexpected '}' at %(where)s"), self.i)
                self.i += 1
            else:  # plain text, with the '|'s outside all braces
                plain = _PLAIN_RE if self.depth else _TOP_PLAIN_RE
                end = plain.match(self.src, self.i + 1).end()  # type: ignore[union-attr]
                nodes.append(Text(self.src[self.i : end]))
                self.i = end
        return tuple(nodes)

    def alternative(self) -> Seq:
        self.alternatives += 1
        if self.alternatives > MAX_ALTERNATIVES:
            message = gettext_noop("more than %(limit)s spintax alternatives (from %(where)s)")
            raise _Stop(self.over(message, MAX_ALTERNATIVES))
        return self.sequence()

    def over(self, message: str, limit: int) -> str:
        """A limit passed here; `message` is marked with gettext_noop where it is written."""
        return _(message) % {"limit": number(limit), "where": where(self.src, self.i)}

    def choice(self) -> Choice:
        start = self.i
        if self.depth >= MAX_NESTING:
            raise _Stop(
                _("spintax nested more than %(levels)d levels deep at %(where)s")
                % {"levels": MAX_NESTING, "where": where(self.src, start)}
            )
        self.depth += 1
        self.i += 1
        alternatives = [self.alternative()]
        while self.i < len(self.src) and self.src[self.i] == "|":
            self.i += 1
            alternatives.append(self.alternative())
        self.depth -= 1
        if self.i >= len(self.src):
            self.problem(gettext_noop("unclosed '{' opened at %(where)s"), start)
        else:
            self.i += 1
            if not all(alternatives):
                shown = self.src[start : self.i]
                shown = shown if len(shown) <= 40 else shown[:19] + "…" + shown[-19:]
                message = gettext_noop("empty alternative in '%(shown)s' at %(where)s")
                self.problem(message, start, shown)
        return Choice(tuple(alternatives), start)


def parse(source: str) -> tuple[Seq, tuple[str, ...]]:
    """The syntax tree (recovered past errors) and the syntax problems, in the UI language.
    Past a limit, no tree: the problems so far and one saying which limit (or that there
    are more problems than MAX_PROBLEMS)."""
    if len(source) > MAX_SOURCE_CHARS:  # before the cache: it would keep the text
        return (), (too_long(len(source)),)
    return _parse_cached(source, get_language())


@lru_cache(maxsize=128)
def _parse_cached(source: str, language: str | None) -> tuple[Seq, tuple[str, ...]]:
    """Cached per source and language, because the problems are translated messages."""
    parser = _Parser(source)
    try:
        parsed = parser.sequence()
    except _Stop as stop:
        if stop.first:
            return (), (stop.message, *parser.problems)
        return (), (*parser.problems, stop.message)
    return parsed, tuple(parser.problems)


def tree(source: str) -> Seq:
    """The tree of a template that renders; TemplateError with its problems otherwise."""
    parsed, problems = parse(source)
    if problems:
        raise TemplateError(list(problems))
    return parsed
