"""Message templates with spintax: validate, render deterministically, count and preview.

Syntax:
* ``{a|b|c}`` picks one alternative; alternatives nest: ``{Bună ziua|Salut|{Bună|Hei}}``.
* ``{{company_name}}`` is a variable; ``{{contact_name|stimate client}}`` has a fallback used
  when the value is missing or blank. Spaces inside the braces are ignored (``{{ county }}``),
  names match ``[a-z_][a-z0-9_]*`` and a fallback may not contain ``{`` or ``}``.
* At ``{{`` the text is a variable only if it matches the variable grammar up to ``}}``;
  otherwise the first ``{`` opens spintax, so ``{{Bună|Hei}|Salut}`` is nested spintax.
* Literal braces are NOT supported: there is no escape, every ``{`` and ``}`` is syntax.
  A ``|`` outside all braces is plain text.
* Text, diacritics included (ă â î ș ț), is kept exactly as written; Unicode is not normalised.

Rendering picks one alternative per choice, in document order, with ``random.Random`` seeded
from sha256(seed), so a retry with the same seed sends the same text. Variable values are
inserted literally (never parsed as spintax), with surrounding whitespace stripped. A variable
that renders empty (no value, no fallback) takes one neighbouring space with it: the space
before it when followed by a space, punctuation or the end ("Bună ziua {{contact_name}}, ..."
gives "Bună ziua, ..."), else the space after it at the start of a line.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import random
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from whatsapp import backends as whatsapp_backends

if TYPE_CHECKING:
    from outreach.models import Lead

KNOWN_VARIABLES: frozenset[str] = frozenset(
    {"company_name", "contact_name", "county", "locality", "cui"}
)
# The longest text of each channel (WhatsApp's is its backends' common limit).
CHANNEL_LIMITS: dict[str, int] = {
    "WHATSAPP": whatsapp_backends.MAX_TEXT,
    "EMAIL_COLD": 10000,
    "EMAIL_WARM": 50000,
}

NOMINAL_VARIABLE_LENGTH = 40  # length check: a variable without fallback counts as this long
PREVIEW_ENUMERATE_LIMIT = 2000  # preview lists every variant up to this many, else samples
LINK_ENUMERATE_LIMIT = 1000  # links split by spintax ({agro|ferma}.ro) are sought up to this
MAX_NESTING = 50  # deeper spintax is refused (it also keeps the recursion bounded)

_NAME_RE = re.compile(r"[a-z_][a-z0-9_]*")
_VAR_RE = re.compile(r"\{\{\s*([a-z_][a-z0-9_]*)\s*(?:\|([^{}]*))?\}\}")
_BRACED_RE = re.compile(r"\{\{([^{}|]*)\}\}")  # what a writer meant as a variable
_PLAIN_RE = re.compile(r"[^{}|]*")
_TLDS = (
    "ro|com|net|org|eu|info|biz|io|co|md|de|it|fr|es|hu|bg|at|nl|uk|us|me|app|dev|online"
    "|site|shop|store|xyz|link|farm|bio|agency|ly"
)
# http(s)://… and www.… in any case; bare domains need a lowercase TLD from the list, so
# "S.R.L.", "9.30", "1.500" or a missing space ("ziua.De") are not links; e-mail addresses
# are not links either.
_TAIL = r"(?:[^\s{}|<>\"']*[^\s{}|<>\"'.,;:!?)])?"  # the rest of a link, minus end punctuation
_SCHEME = r"(?i:https?://|www\.)"
_DOMAIN = r"(?<![\w@.-])(?:[^\W_](?:[\w-]*[^\W_])?\.)+(?:" + _TLDS + r")\b"
_LINK_RE = re.compile(f"{_SCHEME}{_TAIL}|{_DOMAIN}(?:/{_TAIL})?")
_TIGHT = " ,.;:!?\n"  # an empty variable before one of these gives up the space before it


class TemplateError(ValueError):
    """A template that cannot be rendered; ``problems`` says why, in plain words."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)


@dataclass(frozen=True)
class Rendered:
    text: str
    variant_hash: str  # identifies the chosen alternatives, not the variable values


@dataclass(frozen=True)
class Preview:
    variants: list[str]
    total: int


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


class _TooDeep(Exception):
    pass


def _where(source: str, pos: int) -> str:
    """1-based line and column of an index, the one position format of every message."""
    line = source.count("\n", 0, pos) + 1
    column = pos - source.rfind("\n", 0, pos)
    return _("line %(line)d, column %(column)d") % {"line": line, "column": column}


class _Parser:
    """Recursive descent that records every problem and carries on, so validate sees all."""

    def __init__(self, source: str) -> None:
        self.src = source
        self.i = 0
        self.depth = 0
        self.problems: list[str] = []

    def sequence(self) -> Seq:
        nodes: list[Node] = []
        while self.i < len(self.src):
            c = self.src[self.i]
            if c in "|}" and self.depth:
                break
            if c == "{":
                var = _VAR_RE.match(self.src, self.i)
                if var:
                    nodes.append(Var(var[1], (var[2] or "").strip(), self.i))
                    self.i = var.end()
                else:
                    nodes.append(self.choice())
            elif c == "}":
                where = _where(self.src, self.i)
                self.problems.append(_("unexpected '}' at %(where)s") % {"where": where})
                self.i += 1
            else:  # plain text, or a '|' outside all braces
                end = _PLAIN_RE.match(self.src, self.i + 1).end()  # type: ignore[union-attr]
                nodes.append(Text(self.src[self.i : end]))
                self.i = end
        return tuple(nodes)

    def choice(self) -> Choice:
        start = self.i
        if self.depth >= MAX_NESTING:
            raise _TooDeep(start)
        self.depth += 1
        self.i += 1
        alternatives = [self.sequence()]
        while self.i < len(self.src) and self.src[self.i] == "|":
            self.i += 1
            alternatives.append(self.sequence())
        self.depth -= 1
        if self.i >= len(self.src):
            where = _where(self.src, start)
            self.problems.append(_("unclosed '{' opened at %(where)s") % {"where": where})
        else:
            self.i += 1
            if not all(alternatives):
                shown = self.src[start : self.i]
                shown = shown if len(shown) <= 40 else shown[:19] + "…" + shown[-19:]
                self.problems.append(
                    _("empty alternative in '%(shown)s' at %(where)s")
                    % {"shown": shown, "where": _where(self.src, start)}
                )
        return Choice(tuple(alternatives), start)


def _parse(source: str) -> tuple[Seq, tuple[str, ...]]:
    """The syntax tree (recovered past errors) and the syntax problems, in the UI language."""
    return _parse_cached(source, get_language())


@lru_cache(maxsize=128)
def _parse_cached(source: str, language: str | None) -> tuple[Seq, tuple[str, ...]]:
    """Cached per source and language, because the problems are translated messages."""
    parser = _Parser(source)
    try:
        tree = parser.sequence()
    except _TooDeep as deep:
        where = _where(source, deep.args[0])
        too_deep = _("spintax nested more than %(levels)d levels deep at %(where)s") % {
            "levels": MAX_NESTING,
            "where": where,
        }
        return (), (too_deep,)
    return tree, tuple(parser.problems)


def _tree(source: str) -> Seq:
    tree, problems = _parse(source)
    if problems:
        raise TemplateError(list(problems))
    return tree


def _seed_int(seed: str) -> int:
    return int.from_bytes(hashlib.sha256(seed.encode()).digest(), "big")


def _resolve(var: Var, variables: Mapping[str, str]) -> str | None:
    """The value, else the fallback; None marks an empty variable for _join."""
    value = variables.get(var.name)
    return ("" if value is None else str(value).strip()) or var.fallback or None


def _join(parts: Sequence[str | None]) -> str:
    """Concatenate rendered pieces; an empty variable (None) takes a surplus space with it."""
    after = [""] * len(parts)  # the first non-empty piece after each index
    for i in range(len(parts) - 1, 0, -1):
        after[i - 1] = parts[i] or after[i]
    out: list[str] = []  # non-empty chunks
    skip_space = False
    for part, following in zip(parts, after, strict=True):
        if part is None:
            last = out[-1][-1] if out else ""
            if last == " " and following[:1] in _TIGHT:
                out[-1] = out[-1][:-1]
                if not out[-1]:
                    out.pop()
            elif last in ("", "\n") and following.startswith(" "):
                skip_space = True
            continue
        if skip_space and part.startswith(" "):
            part = part[1:]
        skip_space = False
        if part:
            out.append(part)
    return "".join(out)


def _pick(
    seq: Seq, variables: Mapping[str, str], rng: random.Random, path: list[int]
) -> list[str | None]:
    """Pieces of one rendering; appends each chosen index to path, in document order."""
    parts: list[str | None] = []
    for node in seq:
        if isinstance(node, Text):
            parts.append(node.value)
        elif isinstance(node, Var):
            parts.append(_resolve(node, variables))
        else:
            path.append(rng.randrange(len(node.alternatives)))
            parts += _pick(node.alternatives[path[-1]], variables, rng, path)
    return parts


def _render(tree: Seq, variables: Mapping[str, str], seed: str) -> Rendered:
    rng = random.Random(_seed_int(seed))  # noqa: S311 - variety, not secrecy
    path: list[int] = []
    text = _join(_pick(tree, variables, rng, path))
    digest = hashlib.sha256(".".join(map(str, path)).encode()).hexdigest()
    return Rendered(text, digest[:16])


def _expand(seq: Seq, variables: Mapping[str, str]) -> list[tuple[str | None, ...]]:
    """Every rendering of seq as pieces, in choice order (callers keep the count small)."""
    options: list[list[tuple[str | None, ...]]] = []
    for node in seq:
        if isinstance(node, Text):
            options.append([(node.value,)])
        elif isinstance(node, Var):
            options.append([(_resolve(node, variables),)])
        else:
            options.append([r for alt in node.alternatives for r in _expand(alt, variables)])
    return [tuple(itertools.chain.from_iterable(combo)) for combo in itertools.product(*options)]


def _count(seq: Seq) -> int:
    total = 1
    for node in seq:
        if isinstance(node, Choice):
            total *= sum(_count(alt) for alt in node.alternatives)
    return total


def _longest(seq: Seq) -> int:
    total = 0
    for node in seq:
        if isinstance(node, Text):
            total += len(node.value)
        elif isinstance(node, Var):
            total += len(node.fallback) or NOMINAL_VARIABLE_LENGTH
        else:
            total += max(_longest(alt) for alt in node.alternatives)
    return total


def _variables(seq: Seq) -> Iterator[Var]:
    """Every variable in every alternative, in document order."""
    for node in seq:
        if isinstance(node, Var):
            yield node
        elif isinstance(node, Choice):
            for alt in node.alternatives:
                yield from _variables(alt)


def _link_problems(source: str, tree: Seq, enumerate_variants: bool) -> list[str]:
    """Links in the raw text (every alternative); failing that, in every rendering."""
    problems, seen = [], set()
    for m in _LINK_RE.finditer(source):
        if (link := m[0]) not in seen:
            seen.add(link)
            problems.append(
                _("'%(link)s' at %(where)s") % {"link": link, "where": _where(source, m.start())}
            )
    if not problems and enumerate_variants and _count(tree) <= LINK_ENUMERATE_LIMIT:
        for parts in _expand(tree, {}):
            if rendered := _LINK_RE.search(_join(parts)):
                problems.append(_("'%(link)s' (in a rendered variant)") % {"link": rendered[0]})
                break
    head = _("links are not allowed in a first WhatsApp message (anti-spam): %(link)s")
    return [head % {"link": p} for p in problems]


def validate(
    source: str, *, channel: str, first_message: bool = False, custom_fields: Iterable[str] = ()
) -> list[str]:
    """Every problem with a template, as messages for the person writing it; [] when fine."""
    channel = str(channel)
    if channel not in CHANNEL_LIMITS:
        raise ValueError(f"unknown channel {channel!r}")
    tree, syntax = _parse(source)
    problems = list(syntax)
    var_positions = {var.pos for var in _variables(tree)}
    for m in _BRACED_RE.finditer(source):
        if m.start() not in var_positions:
            problems.append(
                _(
                    "'%(text)s' at %(where)s is not a valid variable: "
                    "names use only lowercase a-z, 0-9 and _"
                )
                % {"text": m[0], "where": _where(source, m.start())}
            )
    custom = set(custom_fields)
    known = ", ".join(sorted(KNOWN_VARIABLES))
    extra = (
        _(" (+ custom fields: %(fields)s)") % {"fields": ", ".join(sorted(custom))}
        if custom
        else ""
    )
    for var in _variables(tree):
        if var.name not in KNOWN_VARIABLES | custom:
            name = "{{" + var.name + "}}"
            where = _where(source, var.pos)
            problems.append(
                _("unknown variable %(name)s at %(where)s; known: %(known)s%(extra)s")
                % {"name": name, "where": where, "known": known, "extra": extra}
            )
    if channel == "WHATSAPP" and first_message:
        problems += _link_problems(source, tree, enumerate_variants=not syntax)
    longest, limit = _longest(tree), CHANNEL_LIMITS[channel]
    if longest > limit:
        problems.append(
            _("the longest variant is %(longest)d characters; %(channel)s allows at most %(limit)d")
            % {"longest": longest, "channel": channel, "limit": limit}
        )
    return problems


def render(source: str, variables: Mapping[str, str], *, seed: str) -> Rendered:
    """One variant, the same for the same seed; TemplateError if the syntax is broken."""
    return _render(_tree(source), variables, seed)


def count_variants(source: str) -> int:
    """Number of choice paths (exact; identical alternatives still count separately)."""
    return _count(_tree(source))


def preview(source: str, variables: Mapping[str, str], n: int = 5) -> Preview:
    """Up to n distinct rendered texts, chosen deterministically, and the variant count."""
    tree = _tree(source)
    total = _count(tree)
    texts: list[str] = []
    if n > 0 and total <= PREVIEW_ENUMERATE_LIMIT:
        texts = list(dict.fromkeys(_join(parts) for parts in _expand(tree, variables)))
        if len(texts) > n:  # spread evenly over the enumeration order
            texts = [texts[i * len(texts) // n] for i in range(n)]
    elif n > 0:
        for attempt in range(50 * n):
            text = _render(tree, variables, f"preview:{attempt}").text
            if text not in texts:
                texts.append(text)
                if len(texts) == n:
                    break
    return Preview(texts, total)


def choose_version(weights: Sequence[int], seed: str) -> int:
    """Index picked with probability proportional to weight, always the same for a seed."""
    if any(w < 0 for w in weights):
        raise ValueError("weights must not be negative")
    if sum(weights) <= 0:
        raise ValueError("no version with a positive weight to choose from")
    ticket = _seed_int("version:" + seed) % sum(weights)
    return bisect.bisect_right(list(itertools.accumulate(weights)), ticket)


def lead_variables(lead: Lead) -> dict[str, str]:
    """Template variables of a lead: the built-ins, then its scalar custom fields."""
    values = {
        "company_name": lead.name or "",
        "contact_name": lead.contact_name or "",
        "county": lead.county or "",
        "locality": lead.locality or "",
        "cui": lead.cui or "",
    }
    custom = lead.custom_fields if isinstance(lead.custom_fields, dict) else {}
    for key, value in custom.items():
        if key in values or not isinstance(key, str) or not _NAME_RE.fullmatch(key):
            continue  # built-ins win; a name a template cannot spell is useless
        if isinstance(value, str):
            values[key] = value
        elif isinstance(value, int | float) and not isinstance(value, bool):
            values[key] = str(value)
    return values


def variant_seed(lead_id: int, step_id: int | str, version_id: int) -> str:
    """Seed for one lead, step and version, so a retry renders exactly the same text."""
    return f"{lead_id}:{step_id}:{version_id}"
