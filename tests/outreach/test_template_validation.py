from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from outreach.models import SequenceStep, TemplateVersion
from tests.factories import make_lead, make_sequence, make_template


def test_template_version_with_bad_spintax_is_refused(tenant):
    template = make_template(tenant)
    version = TemplateVersion(tenant=tenant, template=template, version=2, body="{Bună|Salut")
    with pytest.raises(ValidationError) as error:
        version.full_clean()
    assert "unclosed '{'" in str(error.value.message_dict["body"])


def test_unknown_variable_is_refused_but_a_custom_field_is_known(tenant):
    make_lead(tenant, custom_fields={"hectare": "300"})
    template = make_template(tenant)
    ok = TemplateVersion(tenant=tenant, template=template, version=2, body="{{hectare}} ha")
    ok.full_clean()
    bad = TemplateVersion(tenant=tenant, template=template, version=3, body="{{hectare_x}} ha")
    with pytest.raises(ValidationError, match="unknown variable"):
        bad.full_clean()


def test_first_whatsapp_step_refuses_a_template_with_a_link(tenant):
    sequence = make_sequence(tenant)
    template = make_template(tenant)
    template.versions.update(body="Vedeți oferta pe www.agro-oferte.ro")
    step = SequenceStep(
        tenant=tenant,
        sequence=sequence,
        position=1,
        channel="WHATSAPP",
        template=template,
        sequence_version=2,
    )
    with pytest.raises(ValidationError, match="links are not allowed"):
        step.full_clean()
    step.position = 2  # a follow-up may carry a link
    step.full_clean()


def test_step_channel_must_match_the_template(tenant):
    sequence = make_sequence(tenant)
    step = SequenceStep(
        tenant=tenant,
        sequence=sequence,
        position=2,
        channel="EMAIL_COLD",
        template=make_template(tenant),
        sequence_version=1,
    )
    with pytest.raises(ValidationError, match="needs a template for that channel"):
        step.full_clean()
