"""What the brochure tests share besides their fixtures (conftest.py): the model's answers
in the chat-completions shape, a brochure drafted as the worker drafts it, its drafts."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

from outreach.brochures import jobs
from outreach.models import Brochure, Template, TemplateVersion
from tests.outreach.brochures.pdfs import brochure_pdf

MONDAY_10 = datetime(2026, 11, 23, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))
BASE = "https://llm.test/v1"
URL = f"{BASE}/chat/completions"
KEY = "sk-test-brochure-7c41d2"
MODEL = "gpt-4o-mini"

GOOD_ANSWER = {
    "whatsapp_first": (
        "{Bună ziua|Salut}, {{contact_name|stimate client}}! {Sunt de la|Vă scriu din partea} "
        "Agro Demo. {Avem|Am pregătit} pentru {{company_name}} azotat de amoniu la 2.450 lei/t "
        "și uree granulată la 2.890 lei/tonă. {Vă interesează|Doriți} oferta completă? Dacă nu "
        "doriți mesaje de la noi, răspundeți STOP."
    ),
    "whatsapp_followup_1": (
        "Revin, {{contact_name|stimate client}}: {avem|mai avem} și hibridul P9903 la 890 "
        "lei/sac. {Vă trimit|Vă pot trimite} detaliile?"
    ),
    "whatsapp_followup_2": (
        "{Un ultim mesaj|Ultimul meu mesaj} despre îngrășămintele de toamnă. Dacă nu este "
        "momentul, nicio problemă: scrieți-ne oricând."
    ),
    "email_subject": "{Oferta|Prețurile} de toamnă pentru {{company_name}}",
    "email_body": (
        "Bună ziua, {{contact_name|stimate client}},\n\nSunt de la Agro Demo și vă trimit "
        "prețurile de toamnă:\n- Azotat de amoniu 34,4% N: 2.450 lei/t\n- Hibrid P9903: 890 "
        "lei/sac\n\nUn răspuns la acest e-mail ajunge.\n\nCu stimă,\nAgro Demo\n\nDacă nu "
        "doriți să mai primiți e-mailuri de la noi, răspundeți cu „dezabonare”."
    ),
}


def completion(content: str) -> dict:
    """An OpenAI chat completion carrying `content` as its first choice."""
    return {
        "id": "chatcmpl-B9x2",
        "object": "chat.completion",
        "created": 1795420800,
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 812, "completion_tokens": 402, "total_tokens": 1214},
    }


def answer(**changes: object) -> dict:
    """The model's completion of GOOD_ANSWER with some fields changed (None drops one)."""
    drafts = {**GOOD_ANSWER, **changes}
    return completion(json.dumps({k: v for k, v in drafts.items() if v is not None}))


def drafted(tenant, content: bytes | None = None, name: str = "catalog-toamna.pdf") -> Brochure:
    """A brochure uploaded and run as the worker runs it."""
    brochure = jobs.start(tenant, file_name=name, content=content or brochure_pdf())
    done = jobs.run(brochure.pk)
    assert done is not None
    return done


def drafts_of(brochure: Brochure) -> dict[str, TemplateVersion]:
    """The drafted versions by kind: whatsapp_first, whatsapp_followup_1, _2, email."""
    versions = list(brochure.versions.select_related("template").order_by("pk"))
    names = ["whatsapp_first", "whatsapp_followup_1", "whatsapp_followup_2", "email"]
    return dict(zip(names, versions, strict=True))


def templates_of(tenant) -> list[str]:
    return list(Template.objects.filter(tenant=tenant).values_list("name", flat=True))
