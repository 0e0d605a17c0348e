"""The shipped intent model (issue #10 §2): trained on our own labelled replies only, loaded
offline, scored in plain Python exactly as scikit-learn fitted it, blended with the rules
that keep opt-outs, out-of-office replies and negations."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from hitl.triage import INTENTS, OfflineTriage
from hitl.triage.model import MODEL_PATH, IntentModel, features, shipped
from hitl.triage.offline import blend
from tests.hitl import triage_cases, triage_dev

TRAINER = Path(__file__).resolve().parents[2] / "bench" / "train_intent_model.py"


def trainer():
    spec = importlib.util.spec_from_file_location("train_intent_model", TRAINER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_model_ships_with_the_package_and_is_small():
    assert MODEL_PATH.exists()
    assert MODEL_PATH.stat().st_size < 500 * 1024
    model = shipped()
    assert model is not None and model is shipped()  # loaded once
    assert set(model.classes) == set(INTENTS)


def test_the_model_was_trained_on_the_old_and_development_sets_exactly():
    # A fingerprint of every training reply and its label: the shipped file is rebuilt
    # whenever these sets change, and nothing else (never the held-out set) went in.
    pytest.importorskip("sklearn")
    train = trainer()
    meta = shipped().meta
    assert meta["trained_on"] == {"old": len(triage_cases.CASES), "dev": len(triage_dev.CASES)}
    assert meta["fingerprint"] == train.fingerprint(triage_cases.CASES + triage_dev.CASES)


def test_plain_python_scoring_matches_scikit_learn():
    pytest.importorskip("sklearn")
    train = trainer()
    cases = triage_cases.DEV
    vectorizer, classifier = train.fit(cases)
    model = IntentModel(train.export(vectorizer, classifier, cases, {}))
    texts = [case.text for case in triage_dev.CASES[:80]] + ["", "👍", "x" * 50]
    expected = classifier.predict_proba(vectorizer.transform(texts))
    for text, row in zip(texts, expected, strict=True):
        got = model.probabilities(text)
        for intent, probability in zip(classifier.classes_, row, strict=True):
            assert got[intent] == pytest.approx(probability, abs=2e-3), text


def test_features_are_diacritics_blind():
    assert features("Ştergeţi-mă, sunt interesați") == features("Stergeti-ma, sunt interesati")


def test_the_blend_never_decides_an_opt_out():
    # Opt-outs stay the vocabulary's: as an extra ear the model heard 79 % of the stops in
    # cross-validation, but read "Please remove the VAT from the quote" as one (0.85).
    probabilities = dict.fromkeys(INTENTS, 0.0) | {"unsubscribe": 0.99, "other": 0.01}
    assert blend("other", 0.35, probabilities)[0] == "other"
    backend = OfflineTriage()
    for text in triage_dev.LOOK_ALIKES:
        assert backend.analyse(text).intent != "unsubscribe", text


def test_an_interest_the_rules_only_found_negated_is_not_a_candidate():
    backend = OfflineTriage()
    for text in ("I don't think we'd be interested.", "Nu suntem interesaţi de colaborare."):
        assert backend.analyse(text).intent == "not_interested", text


def test_rules_alone_remain_available_and_everything_is_deterministic():
    rules_only = OfflineTriage(intent_model=None)
    assert rules_only.intent_model is None
    assert rules_only.analyse("Da, sunt interesat.").intent == "interested"
    backend = OfflineTriage()
    for case in triage_dev.CASES[:50]:
        assert backend.analyse(case.text) == backend.analyse(case.text)


@pytest.mark.parametrize(
    "text",
    [
        "Da, sigur, exact asta îmi lipsea 🙄",
        "Wow, so exciting. Not.",
        "Haha, sigur, o să vă sun mâine. Sau nu.",
    ],
)
def test_a_sarcastic_yes_is_read_as_what_it_means(text):
    result = OfflineTriage().analyse(text)
    assert "sarcasm" in result.signals
    assert result.intent in ("not_interested", "complaint") and result.sentiment < 0
