"""Offline triage: keyword/phrase tables with negation windows, no model, no network.

How a reply is read:

1. `normalise` (lowercase, no diacritics — ș/ş and ț/ţ alike), then split into clauses at
   punctuation and at "dar/însă/but", and into tokens ("n-am" → "n am", "don't" → "dont").
   A few words that matter are typo-tolerant: a token one edit away from "interesat",
   "reclamatie", "concediu", ... is read as that word ("intresat" → "interesat").
2. Every cue (a regex over a clause's tokens) adds its weight to an intent. Negatable cues
   look back a few tokens for a negator (nu, n, nici, fără, not, no, never, don't...) in
   the same clause: "nu sunt interesat" credits not_interested instead of interested,
   "nu e problemă" credits nothing, "nu mă sunați" is not a meeting request. "Nu știu
   dacă..." / "not sure if..." is a hedge, not a negation.
3. Opt-outs win outright (they must be honoured), then autoreplies (unless the sender also
   asks to be called), then the intent with the highest score; ties go to the intent a
   person must handle first (complaint, referral, wrong_person, meeting, price, ...).
4. The sentiment is the intent's base score moved by tone words and emoji, clamped into
   the intent's band, so that routing on the score is sensible: interested and
   meeting_request ≥ 50, price_request/question/referral/out_of_office/other 0..49,
   not_interested/complaint/unsubscribe < 0 (a deferral — "poate la toamnă" — stays 0..30,
   a question about where we got the number goes below 0).
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from datetime import date
from typing import Any

from hitl.triage import model, rules
from hitl.triage.base import INTENTS, TriageBackend, TriageResult, normalise, prefix
from hitl.triage.dates import parse_return_date
from hitl.triage.drafts import draft_reply
from hitl.triage.facts import DraftContext, extract
from outreach import optout


@functools.lru_cache(maxsize=4096)
def _canonical(token: str) -> str:
    if len(token) < 7 or token in rules.FUZZY_SET or token.isdigit():
        return token
    for word in rules.FUZZY:
        if optout.one_edit_apart(token, word):
            return word
    return token


def _tokens(clause: str) -> list[str]:
    tokens: list[str] = []
    for raw in rules.TOKEN.findall(clause):
        if raw == "t" and tokens and tokens[-1].endswith("n"):  # don't → dont
            tokens[-1] += "t"
        else:
            tokens.append(_canonical(raw))
    return tokens


def clauses(norm: str) -> list[list[str]]:
    """The normalised text as clauses of canonical tokens (empty clauses dropped)."""
    return [t for t in (_tokens(c) for c in rules.CLAUSE_SPLIT.split(norm)) if t]


def _negation(tokens: list[str], index: int, window: int) -> str:
    """Whether a negator precedes the cue whose head is tokens[index] within `window`
    tokens: "negated", "hedged" ("nu știu dacă...") or ""."""
    for j in range(index - 1, max(-1, index - 1 - window), -1):
        if tokens[j] in rules.NEGATORS:
            after = " ".join(tokens[j + 1 : index])
            return "hedged" if rules.HEDGE.match(after) else "negated"
    return ""


def _head(match: re.Match[str]) -> int:
    for name in ("h", "h2", "h3"):
        if name in match.re.groupindex and match.group(name) is not None:
            return match.start(name)
    return match.start()


def score(norm: str, *, stop: bool | None = None) -> dict[str, float]:
    """Intent (and "_flag") scores for a normalised text. `stop`: whether the reply asks to
    stop, when the caller already knows (default: `outreach.optout.asks_to_stop(norm)`)."""
    scores: dict[str, float] = defaultdict(float)
    parts = clauses(norm)
    for tokens in parts:
        line = " ".join(tokens)
        for cue in rules.CUES:
            for match in cue.pattern.finditer(line):
                if cue.negated is not None:
                    head = line.count(" ", 0, _head(match))
                    state = _negation(tokens, head, cue.window)
                    if state == "negated":
                        if cue.negated:
                            scores[cue.negated] += cue.weight
                        scores["_negated_" + cue.intent] += cue.weight
                        continue
                    if state == "hedged":
                        scores[cue.intent] += cue.weight / 2
                        scores["question"] += 1
                        continue
                scores[cue.intent] += cue.weight
        words = set(tokens)
        if words <= rules.YES_FILLER and words & rules.YES:
            scores["interested"] += 2
        elif words <= rules.NO_FILLER and words & rules.NO:
            scores["not_interested"] += 3
    if optout.asks_to_stop(norm) if stop is None else stop:  # the one opt-out vocabulary
        scores["unsubscribe"] += 5
    if "?" in norm:
        scores["question"] += 1
    if scores["referral"] >= 3 and (rules.PHONE.search(norm) or rules.EMAIL.search(norm)):
        scores["referral"] += 1
    if scores["meeting_request"] >= 2:
        scores["meeting_request"] += min(scores["_time"], 2)
    if scores["_deferral"]:  # "reveniți după recoltare" declines for now
        scores["not_interested"] += 1
    return scores


def decide(scores: dict[str, float]) -> tuple[str, float]:
    """The intent and a confidence in 0..1."""
    if scores["unsubscribe"] >= 5:
        return "unsubscribe", 0.95
    if scores["out_of_office"] >= 4 and scores["meeting_request"] < 3:
        return "out_of_office", 0.9
    if scores["complaint"] < 2:  # a lone "problemă" is not a complaint
        scores = defaultdict(float, scores, complaint=0)
    ranked = sorted(
        rules.PRIORITY, key=lambda intent: (-scores[intent], rules.PRIORITY.index(intent))
    )
    best, second = scores[ranked[0]], scores[ranked[1]]
    if best <= 0:
        return "other", 0.35
    if ranked[0] == "question" and best < 2:  # only a question mark
        return "question", 0.5
    confidence = 0.4 + 0.08 * min(best, 5) + 0.05 * min(best - second, 4)
    return ranked[0], round(min(confidence, 0.95), 2)


def sentiment(intent: str, scores: dict[str, float], norm: str) -> int:
    base, low, high = rules.BANDS[intent]
    if intent == "not_interested" and scores["_deferral"]:
        base, low, high = rules.DEFERRAL_BAND
    if intent == "question" and scores["_privacy"]:
        base = rules.PRIVACY_BASE
    if intent in ("interested", "meeting_request"):
        base += min(int(scores[intent] - 3) * 5, 20) if scores[intent] > 3 else 0
    if intent == "complaint":
        base -= min(int(scores[intent] - 3) * 5, 20) if scores[intent] > 3 else 0
    positive = min(len(rules.POSITIVE_TONE.findall(norm)), 3) * 5
    negative = min(len(rules.NEGATIVE_TONE.findall(norm)), 3) * 10
    return max(low, min(high, base + positive - negative))


def detect_language(text: str, norm: str) -> str:
    """Romanian or English by stop-word counts (+1 for every word with Romanian
    diacritics); ties — "ok", "👍", "stop" — go to "ro", the language of the outreach."""
    words = rules.TOKEN.findall(norm)
    ro = sum(word in rules.RO_WORDS for word in words)
    en = sum(word in rules.EN_WORDS for word in words)
    ro += sum(1 for word in text.split() if rules.RO_LETTERS.search(word))
    return "en" if en > ro else "ro"


def find_keywords(norm: str) -> tuple[str, ...]:
    """Trigger keywords in the text, normalised ("preț"/"price" → "pret"). "Problemă" in
    "nu e problemă" / "nicio problemă" / "no problem" is an idiom, not a trigger."""
    found = []
    for tokens in clauses(norm):
        line = " ".join(tokens)
        for name, pattern in rules.KEYWORDS:
            for match in pattern.finditer(line):
                if name == "problema":
                    index = line.count(" ", 0, match.start())
                    if _negation(tokens, index, 3):
                        continue
                if name not in found:
                    found.append(name)
                break
    order = [name for name, _ in rules.KEYWORDS]
    return tuple(sorted(found, key=order.index))


def find_signals(norm: str, scores: dict[str, float], intent: str) -> tuple[str, ...]:
    """What routing must know besides the intent (see TriageResult.signals)."""
    found = []
    lines = [" ".join(tokens) for tokens in clauses(norm)]
    complains = any(rules.COMPLAINT_SIGNAL.search(line) for line in lines) or optout.threatens(norm)
    if intent == "complaint" or scores["complaint"] >= 2 or complains:
        found.append("complaint")
    if rules.SARCASM_SIGNAL.search(norm) or any(rules.SARCASM_SIGNAL.search(x) for x in lines):
        found.append("sarcasm")
    if (intent == "meeting_request" or scores["meeting_request"] >= 3) and any(
        rules.MEETING_TIME.search(line) for line in lines
    ):
        found.append("meeting_time")
    if intent == "not_interested" and scores["_deferral"]:  # "poate la toamnă": not now
        found.append("deferral")
    return tuple(found)


def asks_price(scores: dict[str, float]) -> bool:
    """Whether a reply asks for a price, whatever its intent ("Da. Cât costă?")."""
    return scores["price_request"] >= 2


def local_signals(text: str, intent: str) -> tuple[str, ...]:
    """The signals of a reply whose intent another backend decided."""
    norm = normalise(prefix(text))
    return find_signals(norm, score(norm), intent)


# How much the rules' answer weighs against the model's probabilities: the rules' intent gets
# BLEND_WEIGHT × the rules' confidence on top of its probability. Chosen on the old and
# development sets (bench/train_intent_model.py), never on the held-out set.
BLEND_WEIGHT = 0.4
_SHIPPED: Any = object()
# Intents that irony turns around: "Super, exact ce-mi lipsea 🙄" is no interest at all.
SARCASM_FLIPS = ("interested", "meeting_request", "other")


def blend(
    rule_intent: str,
    rule_confidence: float,
    probabilities: dict[str, float],
    scores: dict[str, float] | None = None,
):
    """The intent (never "unsubscribe": opt-outs are the vocabulary's alone) and a
    confidence in 0..1, from the model's probabilities and the rules' answer.

    The model does not see the scope of a negation ("I don't think we'd be interested"
    looks like "interested" to character n-grams): an interest or a meeting the rules only
    found negated is not a candidate."""
    scores = scores if scores is not None else defaultdict(float)
    bonus = BLEND_WEIGHT * rule_confidence
    combined = {
        intent: probabilities.get(intent, 0.0) + (bonus if intent == rule_intent else 0.0)
        for intent in INTENTS
        if intent != "unsubscribe"
        and not (scores["_negated_" + intent] > 0 and scores[intent] <= 0)
    }
    best = max(combined, key=lambda intent: (combined[intent], -INTENTS.index(intent)))
    return best, round(min(combined[best] / (1 + bonus), 0.95), 2)


class OfflineTriage(TriageBackend):
    """The rules, blended with the shipped intent model (`hitl.triage.model`) when it is
    there. Talks to nobody."""

    needs_credentials = False

    def __init__(self, *, intent_model: Any = _SHIPPED, **options: Any) -> None:
        # The OPTIONS of the AI backend are ignored. `intent_model`: an IntentModel, None
        # for the rules alone, or (default) the model shipped with the package.
        self._intent_model = intent_model

    @property
    def intent_model(self):
        return model.shipped() if self._intent_model is _SHIPPED else self._intent_model

    def analyse(
        self,
        text: str,
        *,
        contact_name: str = "",
        company_name: str = "",
        today: date | None = None,
        context: DraftContext | None = None,
    ) -> TriageResult:
        stop = optout.is_opt_out(text)  # the start and the end of a long text
        text = prefix(text)  # the rest reads a bounded prefix
        norm = normalise(text)
        scores = score(norm, stop=stop)
        intent, confidence = decide(scores)
        rules_intent = intent
        fitted = self.intent_model
        if fitted is not None and intent not in ("unsubscribe", "out_of_office"):
            intent, confidence = blend(intent, confidence, fitted.probabilities(text), scores)
        signals = find_signals(norm, scores, intent)
        if intent != rules_intent:  # the model overruled the rules: no automatic answer
            signals += ("uncertain",)
        if "sarcasm" in signals and intent in SARCASM_FLIPS:  # a sarcastic "yes" is a "no"
            intent = "complaint" if "complaint" in signals else "not_interested"
            confidence = min(confidence, 0.5)
            signals = (*find_signals(norm, scores, intent), "uncertain")
        language = detect_language(text, norm)
        return_date = None
        if intent == "out_of_office" or scores["out_of_office"] >= 4:  # "în concediu până..."
            return_date = parse_return_date(norm, today or _today())
        return TriageResult(
            sentiment=sentiment(intent, scores, norm),
            intent=intent,
            confidence=confidence,
            language=language,
            draft=draft_reply(
                intent,
                language,
                contact_name=contact_name,
                company_name=company_name,
                return_date=return_date,
                deferral=bool(scores["_deferral"]),
                facts=extract(text, context=context, today=today, asks_price=asks_price(scores)),
            ),
            backend="offline",
            return_date=return_date,
            keywords=find_keywords(norm),
            signals=signals,
        )


def _today() -> date:
    from django.utils import timezone

    return timezone.localdate()
