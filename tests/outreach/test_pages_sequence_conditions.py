"""The sequences page's step conditions and reply options, filled in without JSON: each kind
saved as outreach.step_conditions stores it, a bad row refused on that row with nothing
saved, a change of conditions is a new version when leads run on the old one, "Add a
condition" shows one more row without saving, and the page says the conditions in words."""

from __future__ import annotations

import pytest

from outreach.models import Channel, Enrollment, Sequence, Stage
from tests.factories import make_lead, make_sequence, make_template
from tests.outreach.test_pages_sequences import EN, sequence_post, step

pytestmark = pytest.mark.django_db


def with_conditions(template, rows: list[dict], channel: str = Channel.WHATSAPP) -> dict:
    """A step's form data with condition rows (`cond-N-kind`, `-hours`, `-stages`)."""
    found = step(template, channel)
    for index, row in enumerate(rows):
        for key, value in row.items():
            found[f"cond-{index}-{key}"] = value
    return found


def post_new(client, name: str, steps: list[dict], **extra):
    return client.post("/outreach/sequences/new/", sequence_post(name, steps, **extra), **EN)


@pytest.mark.parametrize(
    ("row", "stored"),
    [
        ({"kind": "no_reply"}, {"kind": "no_reply"}),
        ({"kind": "replied"}, {"kind": "replied"}),
        (
            {"kind": "whatsapp_not_delivered", "hours": "6"},
            {"kind": "whatsapp_not_delivered", "hours": 6},
        ),
        ({"kind": "whatsapp_not_read", "hours": "24"}, {"kind": "whatsapp_not_read", "hours": 24}),
        ({"kind": "email_bounced"}, {"kind": "email_bounced"}),
        ({"kind": "no_phone"}, {"kind": "no_phone"}),
        (
            {"kind": "stage_not", "stages": [Stage.WARM_REPLY, Stage.DEAD]},
            {"kind": "stage_not", "stages": [Stage.WARM_REPLY, Stage.DEAD]},
        ),
    ],
)
def test_each_kind_is_stored_as_step_conditions_writes_it(client, operator, tenant, row, stored):
    first, second = make_template(tenant), make_template(tenant)
    client.force_login(operator)
    data = [step(first), with_conditions(second, [row])]
    response = post_new(client, "Cu conditii", data, stop_on_reply="False")  # reply-first: nurture
    assert response.status_code == 302, response.content.decode()
    sequence = Sequence.objects.get(tenant=tenant, name="Cu conditii")
    steps = list(sequence.steps.order_by("position"))
    assert steps[0].conditions == {}
    assert steps[1].conditions == {"all": [stored]}


def test_rows_keep_their_order_and_unused_parts_and_empty_rows_are_ignored(
    client, operator, tenant
):
    template = make_template(tenant)
    rows = [
        {"kind": "replied", "hours": "5", "stages": [Stage.DEAD]},  # hours, stages: not its own
        {"kind": "", "hours": "9"},  # an empty row
        {"kind": "whatsapp_not_read", "hours": "24"},
    ]
    client.force_login(operator)
    response = post_new(client, "Ordine", [with_conditions(template, rows)], stop_on_reply="False")
    assert response.status_code == 302, response.content.decode()
    assert Sequence.objects.get(name="Ordine").steps.get().conditions == {
        "all": [{"kind": "replied"}, {"kind": "whatsapp_not_read", "hours": 24}]
    }


@pytest.mark.parametrize(
    ("row", "part", "message"),
    [
        (
            {"kind": "whatsapp_not_read"},
            "hours",
            "Give the hours as a whole number from 1 to 720.",
        ),
        (
            {"kind": "whatsapp_not_delivered", "hours": "0"},
            "hours",
            "Give the hours as a whole number from 1 to 720.",
        ),
        (
            {"kind": "whatsapp_not_read", "hours": "721"},
            "hours",
            "Give the hours as a whole number from 1 to 720.",
        ),
        (
            {"kind": "whatsapp_not_read", "hours": "douăzeci"},
            "hours",
            "Give the hours as a whole number from 1 to 720.",
        ),
        ({"kind": "stage_not"}, "stages", "Choose one or more stages."),
        ({"kind": "stage_not", "stages": ["NOPE"]}, "stages", "Select a valid choice."),
        ({"kind": "opened_email"}, "kind", "Select a valid choice."),
    ],
)
def test_a_bad_row_is_refused_on_that_row_and_nothing_is_saved(
    client, operator, tenant, row, part, message
):
    sequence = make_sequence(tenant, name="Neschimbata")
    template = sequence.steps.get().template
    good = {"kind": "no_reply"}
    client.force_login(operator)
    response = client.post(
        f"/outreach/sequences/{sequence.pk}/",
        sequence_post(
            "Redenumita", [with_conditions(template, [good, row])], initial=1, description="nou"
        ),
        **EN,
    )
    assert response.status_code == 200
    html = response.content.decode()
    bad_row = html[html.index('data-condition-row="1"') :].split("</div>\n            </div>")[0]
    error = bad_row[bad_row.index(f'data-error="{part}"') :]
    assert message in error[:200]
    assert "A condition of this step is not right (see below)." in html
    assert 'data-error="' not in html[html.index('data-condition-row="0"') : html.index(bad_row)]
    sequence.refresh_from_db()
    assert (sequence.name, sequence.description, sequence.version) == ("Neschimbata", "", 1)
    assert sequence.steps.get().conditions == {}


def test_changing_only_the_conditions_is_a_new_version_when_leads_run_on_it(
    client, operator, tenant
):
    sequence = make_sequence(tenant, name="Rulanta")
    template = sequence.steps.get().template
    enrollment = Enrollment.objects.create(tenant=tenant, lead=make_lead(tenant), sequence=sequence)
    client.force_login(operator)
    url = f"/outreach/sequences/{sequence.pk}/"
    same = sequence_post("Rulanta", [step(template)], initial=1)
    assert client.post(url, same, **EN).status_code == 302
    sequence.refresh_from_db()
    assert sequence.version == 1  # nothing changed, no new version

    changed = sequence_post(
        "Rulanta", [with_conditions(template, [{"kind": "no_reply"}])], initial=1
    )
    response = client.post(url, changed, follow=True, **EN)
    assert "saved as version 2" in response.content.decode()
    sequence.refresh_from_db()
    enrollment.refresh_from_db()
    assert (sequence.version, enrollment.sequence_version) == (2, 1)
    assert sequence.steps.get(sequence_version=1).conditions == {}
    assert sequence.steps.get(sequence_version=2).conditions == {"all": [{"kind": "no_reply"}]}

    again = client.post(url, changed, **EN)  # the same conditions again: the same version
    assert again.status_code == 302
    sequence.refresh_from_db()
    assert sequence.version == 2


def test_the_page_shows_stored_conditions_as_rows_and_in_words(client, operator, tenant):
    sequence = make_sequence(tenant, name="Citita")
    sequence.steps.update(
        conditions={
            "all": [
                {"kind": "replied"},
                {"kind": "whatsapp_not_read", "hours": 24},
                {"kind": "stage_not", "stages": [Stage.PAUSED, Stage.DEAD]},
            ]
        }
    )
    client.force_login(operator)
    html = client.get(f"/outreach/sequences/{sequence.pk}/", **EN).content.decode()
    said = html[html.index('data-saved-step="1"') :].split("</tr>")[0]
    assert "Only if the lead has replied (reply-first)" in said
    assert "Only if our last WhatsApp message was not read within 24 hours" in said
    assert "Skip if the stage is one of Paused, Dead" in said
    assert 'value="whatsapp_not_read" selected' in html
    assert 'name="steps-0-cond-1-hours" value="24"' in html
    assert '<option value="DEAD" selected>' in html
    # The three filled rows and one empty row, for the step; the extra step row has one.
    assert html.count('name="steps-0-cond-') == 3 * 4
    assert 'name="steps-0-cond-4-kind"' not in html
    assert 'name="steps-1-cond-0-kind"' in html


def test_add_a_condition_shows_one_more_row_and_saves_nothing(client, operator, tenant):
    template = make_template(tenant)
    client.force_login(operator)
    data = sequence_post("Inca un rand", [with_conditions(template, [{"kind": "replied"}])])
    response = client.post("/outreach/sequences/new/", {**data, "add_condition": "steps-0"}, **EN)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'value="replied" selected' in html
    assert 'name="steps-0-cond-1-kind"' in html and 'name="steps-0-cond-2-kind"' in html
    assert 'name="steps-0-cond-3-kind"' not in html
    assert not Sequence.objects.filter(name="Inca un rand").exists()


def test_reply_options_are_saved_and_kept_when_left_out(client, operator, tenant):
    template = make_template(tenant)
    client.force_login(operator)
    html = client.get("/outreach/sequences/new/", **EN).content.decode()
    assert "Stop this sequence when the lead replies" in html
    assert "Nurture: go on after a reply unless it is negative or an opt-out" in html
    assert "When another contact of the same company replies" in html
    response = post_new(
        client,
        "Nurture",
        [step(template)],
        stop_on_reply="False",
        company_reply=Sequence.CompanyReply.PAUSE,
        company_pause_days="7",
    )
    assert response.status_code == 302, response.content.decode()
    sequence = Sequence.objects.get(name="Nurture")
    assert (sequence.stop_on_reply, sequence.company_reply, sequence.company_pause_days) == (
        False,
        "pause",
        7,
    )
    # A post without them (an older page) keeps them.
    url = f"/outreach/sequences/{sequence.pk}/"
    assert (
        client.post(url, sequence_post("Nurture", [step(template)], initial=1)).status_code == 302
    )
    sequence.refresh_from_db()
    assert (sequence.stop_on_reply, sequence.company_reply, sequence.company_pause_days) == (
        False,
        "pause",
        7,
    )


@pytest.mark.parametrize(
    "extra",
    [{"company_pause_days": "0"}, {"company_pause_days": "366"}, {"company_reply": "forget"}],
)
def test_bad_reply_options_are_refused(client, operator, tenant, extra):
    template = make_template(tenant)
    client.force_login(operator)
    response = post_new(client, "Gresita", [step(template)], **extra)
    assert response.status_code == 200
    assert not Sequence.objects.filter(name="Gresita").exists()


def test_a_reply_first_step_in_a_sequence_a_reply_stops_is_refused_on_the_page(
    client, operator, tenant
):
    first, second = make_template(tenant), make_template(tenant)
    client.force_login(operator)
    data = [step(first), with_conditions(second, [{"kind": "replied"}])]
    response = post_new(client, "Niciodată", data, stop_on_reply="True")
    assert response.status_code == 200
    assert "Step 2 goes only once the lead replied" in response.content.decode()
    assert not Sequence.objects.filter(tenant=tenant, name="Niciodată").exists()


def test_stored_conditions_that_mean_nothing_are_never_dropped_silently(client, operator, tenant):
    sequence = make_sequence(tenant, name="Veche")
    unreadable = {"if": "no_reply"}  # written through the API before it checked
    sequence.steps.update(conditions=unreadable)
    template = sequence.steps.get().template
    client.force_login(operator)
    url = f"/outreach/sequences/{sequence.pk}/"
    assert "data-unreadable-conditions" in client.get(url, **EN).content.decode()

    kept = client.post(url, sequence_post("Veche", [step(template)], initial=1), **EN)
    assert kept.status_code == 200
    assert "The conditions stored for this step cannot be read" in kept.content.decode()
    assert sequence.steps.get().conditions == unreadable

    replaced = sequence_post(
        "Veche", [with_conditions(template, [{"kind": "no_reply"}])], initial=1
    )
    assert client.post(url, replaced, **EN).status_code == 302
    assert sequence.steps.get(sequence_version=1).conditions == {"all": [{"kind": "no_reply"}]}


def test_unreadable_conditions_go_only_when_the_operator_removes_them(client, operator, tenant):
    sequence = make_sequence(tenant, name="Veche")
    sequence.steps.update(conditions={"all": [{"kind": "whatsapp_not_read"}]})  # no hours
    template = sequence.steps.get().template
    client.force_login(operator)
    data = sequence_post("Veche", [step(template)], initial=1)
    data["steps-0-drop_unreadable"] = "1"
    assert client.post(f"/outreach/sequences/{sequence.pk}/", data, **EN).status_code == 302
    assert sequence.steps.get().conditions == {}
