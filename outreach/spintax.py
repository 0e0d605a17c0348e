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

Size, nesting, alternatives, variables and the variant count are bounded
(outreach.spintax_syntax has the limits, re-exported here): a template over a limit is a
validation problem naming it, and nothing here ever lists more variants than it can afford.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import random
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from django.utils.translation import gettext as _

from outreach.spintax_syntax import MAX_ALTERNATIVES as MAX_ALTERNATIVES
from outreach.spintax_syntax import MAX_NESTING as MAX_NESTING
from outreach.spintax_syntax import MAX_PROBLEMS as MAX_PROBLEMS
from outreach.spintax_syntax import MAX_SOURCE_CHARS as MAX_SOURCE_CHARS
from outreach.spintax_syntax import MAX_VARIABLES as MAX_VARIABLES
from outreach.spintax_syntax import VARIANT_COUNT_CAP as VARIANT_COUNT_CAP
from outreach.spintax_syntax import Choice, Seq, Text, Var, more_problems, parse, where
from outreach.spintax_syntax import TemplateError as TemplateError
from outreach.spintax_syntax import number as number
from outreach.spintax_syntax import tree as _tree
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
# Listing every variant costs about their number times the text's length: past this many
# characters, preview samples and the link check reads the raw text only.
ENUMERATE_BUDGET = 2_000_000
PREVIEW_SAMPLE_ATTEMPTS = 50  # renders tried per variant asked for, when sampling
PREVIEW_TEXT_BUDGET = 200_000  # characters of previewed variants together (one at least)

_NAME_RE = re.compile(r"[a-z_][a-z0-9_]*")
_BRACED_RE = re.compile(r"\{\{([^{}|]*)\}\}")  # what a writer meant as a variable
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


@dataclass(frozen=True)
class Rendered:
    text: str
    variant_hash: str  # identifies the chosen alternatives, not the variable values


@dataclass(frozen=True)
class Preview:
    variants: list[str]
    total: int  # at most VARIANT_COUNT_CAP
    more: bool = False  # there are more variants than `total` (counting stopped there)


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
    """Choice paths, counted up to VARIANT_COUNT_CAP + 1 (which stands for "more"): the
    numbers stay small however many choices a template has."""
    total = 1
    for node in seq:
        if isinstance(node, Choice):
            paths = min(sum(_count(alt) for alt in node.alternatives), VARIANT_COUNT_CAP + 1)
            total = min(total * paths, VARIANT_COUNT_CAP + 1)
    return total


def _enumerable(source: str, tree: Seq, limit: int) -> bool:
    """Whether listing every variant stays within `limit` variants and the char budget."""
    count = _count(tree)
    return count <= limit and count * max(len(source), 1) <= ENUMERATE_BUDGET


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


class _Problems:
    """A template's problems, MAX_PROBLEMS at most (a position costs a scan of the text
    before it), then one line saying there are more; `full` tells the checks to stop."""

    def __init__(self, syntax: Iterable[str]) -> None:
        self.spelled = list(syntax)
        self.full = len(self.spelled) > MAX_PROBLEMS  # the parser's list already says so

    def add(self, message: Callable[[], str]) -> None:
        if len(self.spelled) < MAX_PROBLEMS:
            self.spelled.append(message())
        elif not self.full:
            self.full = True
            self.spelled.append(more_problems())


def _link_at(source: str, link: str, at: int) -> str:
    return _("'%(link)s' at %(where)s") % {"link": link, "where": where(source, at)}


def _link_problems(source: str, tree: Seq, enumerate_variants: bool, found: _Problems) -> None:
    """Links in the raw text (every alternative); failing that, in every rendering."""
    head = _("links are not allowed in a first WhatsApp message (anti-spam): %(link)s")
    seen: set[str] = set()
    for m in _LINK_RE.finditer(source):
        if found.full:
            break
        if (link := m[0]) not in seen:
            seen.add(link)
            at = m.start()
            found.add(
                partial(lambda link, at: head % {"link": _link_at(source, link, at)}, link, at)
            )
    if not seen and enumerate_variants and _enumerable(source, tree, LINK_ENUMERATE_LIMIT):
        for parts in _expand(tree, {}):
            if rendered := _LINK_RE.search(_join(parts)):
                shown = _("'%(link)s' (in a rendered variant)") % {"link": rendered[0]}
                found.add(partial(str.__mod__, head, {"link": shown}))
                break


def validate(
    source: str, *, channel: str, first_message: bool = False, custom_fields: Iterable[str] = ()
) -> list[str]:
    """Every problem with a template, as messages for the person writing it; [] when fine
    (past MAX_PROBLEMS, a last line says how many more there are)."""
    channel = str(channel)
    if channel not in CHANNEL_LIMITS:
        raise ValueError(f"unknown channel {channel!r}")
    tree, syntax = parse(source)
    found = _Problems(syntax)
    var_positions = {var.pos for var in _variables(tree)}
    for m in _BRACED_RE.finditer(source if tree else ""):
        if found.full:
            break
        if m.start() not in var_positions:
            found.add(
                partial(
                    lambda m: _(
                        "'%(text)s' at %(where)s is not a valid variable: "
                        "names use only lowercase a-z, 0-9 and _"
                    )
                    % {"text": m[0], "where": where(source, m.start())},
                    m,
                )
            )
    custom = set(custom_fields)
    known = ", ".join(sorted(KNOWN_VARIABLES))
    extra = (
        _(" (+ custom fields: %(fields)s)") % {"fields": ", ".join(sorted(custom))}
        if custom
        else ""
    )
    for var in _variables(tree):
        if found.full:
            break
        if var.name not in KNOWN_VARIABLES | custom:
            found.add(
                partial(
                    lambda var: _(
                        "unknown variable %(name)s at %(where)s; known: %(known)s%(extra)s"
                    )
                    % {
                        "name": "{{" + var.name + "}}",
                        "where": where(source, var.pos),
                        "known": known,
                        "extra": extra,
                    },
                    var,
                )
            )
    if channel == "WHATSAPP" and first_message and tree:
        _link_problems(source, tree, not syntax, found)
    longest, limit = _longest(tree), CHANNEL_LIMITS[channel]
    if longest > limit:
        found.add(
            lambda: _(
                "the longest variant is %(longest)d characters; %(channel)s allows at most "
                "%(limit)d"
            )
            % {"longest": longest, "channel": channel, "limit": limit}
        )
    return found.spelled


def render(source: str, variables: Mapping[str, str], *, seed: str) -> Rendered:
    """One variant, the same for the same seed; TemplateError if the syntax is broken."""
    return _render(_tree(source), variables, seed)


def count_variants(source: str) -> int:
    """Number of choice paths (identical alternatives still count separately), exact up
    to VARIANT_COUNT_CAP; VARIANT_COUNT_CAP + 1 means more than that."""
    return _count(_tree(source))


def preview(source: str, variables: Mapping[str, str], n: int = 5) -> Preview:
    """Up to n distinct rendered texts, chosen deterministically, and the variant count.

    Small templates list every variant and spread the n over them; others sample renders,
    at most PREVIEW_SAMPLE_ATTEMPTS per text asked for and within ENUMERATE_BUDGET
    characters (but n renders at least). The texts stop at PREVIEW_TEXT_BUDGET characters
    together (one at least), so a long template previews fewer variants."""
    tree = _tree(source)
    total = _count(tree)
    texts: list[str] = []
    if n > 0 and _enumerable(source, tree, PREVIEW_ENUMERATE_LIMIT):
        texts = list(dict.fromkeys(_join(parts) for parts in _expand(tree, variables)))
        if len(texts) > n:  # spread evenly over the enumeration order
            texts = [texts[i * len(texts) // n] for i in range(n)]
    elif n > 0:
        affordable = ENUMERATE_BUDGET // max(len(source), 1)
        for attempt in range(max(n, min(PREVIEW_SAMPLE_ATTEMPTS * n, affordable))):
            text = _render(tree, variables, f"preview:{attempt}").text
            if text not in texts:
                texts.append(text)
                if len(texts) == n or sum(map(len, texts)) >= PREVIEW_TEXT_BUDGET:
                    break
    shown = list(itertools.takewhile(lambda end: end <= PREVIEW_TEXT_BUDGET, _ends(texts)))
    texts = texts[: max(len(shown), 1 if texts else 0)]
    return Preview(texts, min(total, VARIANT_COUNT_CAP), more=total > VARIANT_COUNT_CAP)


def _ends(texts: list[str]) -> Iterator[int]:
    """Where each text ends when they are laid end to end."""
    return itertools.accumulate(len(text) for text in texts)


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
