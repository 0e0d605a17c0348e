"""A sequence's results per step and template version (outreach.analytics.sequences): the
figures of a known sequence (tests/sequence_world.py), rates and their denominators, reply
attribution, the date range, tenants, and a fixed number of queries."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from outreach.analytics import RangeInvalid
from outreach.analytics.sequences import Figures, sequence_stats, sequence_summaries
from outreach.models import Channel, Enrollment, Message, Sequence, SequenceStep, TemplateVersion
from outreach.sequences import StepSpec, replace_steps
from tests.factories import make_lead, make_sequence
from tests.sequence_world import DAY, at, build, positive, reply, step_message, versioned_template

pytestmark = pytest.mark.django_db


def counts(figures: Figures) -> tuple:
    f = figures
    return (f.sent, f.delivered, f.read, f.replied, f.positive, f.opt_outs, f.bounces)


@pytest.fixture
def world(tenant):
    return build(tenant)


def test_figures_per_step_and_version(tenant, world):
    stats = sequence_stats(tenant, world.sequence)
    assert [row.step for row in stats.steps] == world.steps
    one, two, three = stats.steps
    assert [row.version for row in one.versions] == world.versions[0]
    # sent, delivered, read, replied, positive, opt-outs, bounces
    assert [counts(v.figures) for v in one.versions] == [
        (3, 2, 1, 1, 1, 0, 0),
        (3, 1, 1, 1, 0, 1, 0),  # read without a delivery report: delivered too
    ]
    assert counts(one.figures) == (6, 3, 2, 2, 1, 1, 0)
    # Email: one delivery reported, no open: read unknown (None), not 0.
    assert [counts(v.figures) for v in two.versions] == [
        (2, 0, None, 0, 0, 0, 1),
        (2, 1, None, 1, 1, 0, 0),  # two replies from L4: one replied message, positive
    ]
    assert counts(two.figures) == (4, 1, None, 1, 1, 0, 1)
    assert [counts(v.figures) for v in three.versions] == [
        (1, 1, 0, 1, 0, 0, 0),
        (1, 0, 0, 1, 0, 0, 0),  # the positive reply came after the AI answer: not the step's
    ]
    assert counts(stats.total) == (12, 5, 2, 5, 2, 1, 1)
    assert stats.all_time and all(row.current for row in stats.steps)


def test_rates_and_their_denominators(tenant, world):
    stats = sequence_stats(tenant, world.sequence)
    total = stats.total
    assert (total.delivered_of, total.read_of) == (12, 8)  # step 2 reports no reads
    assert total.read_rate == 25.0  # 2 of the 8 messages of steps that report reads
    assert total.delivered_rate == 41.7
    assert (total.reply_rate, total.positive_rate) == (41.7, 16.7)
    assert (total.opt_out_rate, total.bounce_rate) == (8.3, 8.3)
    two = stats.steps[1]
    assert two.figures.read_rate is None and two.figures.delivered_rate == 25.0
    assert two.versions[0].figures.bounce_rate == 50.0


def test_nothing_sent_is_no_rate_not_zero(tenant, world):
    s3v3 = TemplateVersion.objects.create(
        tenant=tenant, template=world.steps[2].template, version=3, body="A treia"
    )
    TemplateVersion.objects.filter(pk=world.versions[2][1].pk).update(is_active=False)
    stats = sequence_stats(tenant, world.sequence)
    three = stats.steps[2]
    # The inactive v2 still shows (it sent); the active v3 shows with nothing sent.
    assert [row.version for row in three.versions] == [*world.versions[2], s3v3]
    unsent = three.versions[2].figures
    assert (unsent.sent, unsent.delivered, unsent.read) == (0, 0, 0)
    assert unsent.reply_rate is None and unsent.read_rate is None
    assert unsent.bounce_rate is None and unsent.delivered_rate is None

    empty = make_sequence(tenant)
    stats = sequence_stats(tenant, empty)
    assert counts(stats.total) == (0, 0, 0, 0, 0, 0, 0)  # a WhatsApp step: receipts known
    assert stats.total.reply_rate is None and stats.total.read_rate is None


def test_a_reply_counts_for_the_step_it_followed(tenant, world):
    """L4 replied after step 2 (not step 1); L3 after a person's message that followed step
    1 (step 1's); L6 after another sequence's message (not ours)."""
    one, two, _ = sequence_stats(tenant, world.sequence).steps
    assert one.versions[1].figures.replied == 1  # L3 only, not L4 or L6
    assert two.versions[1].figures.replied == 1  # L4 only, not L6


def test_a_reply_before_the_step_is_not_the_steps(tenant):
    sequence = Sequence.objects.create(tenant=tenant, name="Simplă")
    (version,) = versioned_template(tenant, "Unu", Channel.WHATSAPP, count=1)
    step = SequenceStep.objects.create(
        tenant=tenant,
        sequence=sequence,
        position=1,
        channel=Channel.WHATSAPP,
        template=version.template,
    )
    lead = make_lead(tenant)
    reply(lead, at(0, 7), positive())
    step_message(lead, step, version, at(0, 8))
    assert sequence_stats(tenant, sequence).total.replied == 0


def test_the_date_range_takes_the_messages_sent_in_it(tenant, world):
    # Step 1 went out on DAY, step 2 on DAY+2, step 3 on DAY+4 (local days).
    first = sequence_stats(tenant, world.sequence, DAY, DAY)
    assert [row.figures.sent for row in first.steps] == [6, 0, 0]
    # Replies are the outcome of the messages sent in the range, whenever they came.
    assert first.total.replied == 2
    later = sequence_stats(tenant, world.sequence, DAY + timedelta(days=1), None)
    assert [row.figures.sent for row in later.steps] == [0, 4, 2]
    assert later.total.replied == 3
    until = sequence_stats(tenant, world.sequence, None, DAY + timedelta(days=2))
    assert until.total.sent == 10 and not until.all_time


def test_the_range_is_in_the_tenants_local_days(tenant, world):
    # 22:30 UTC on DAY+5 is 00:30 on DAY+6 in Bucharest.
    lead = make_lead(tenant)
    s1v1 = world.versions[0][0]
    step_message(lead, world.steps[0], s1v1, datetime(2026, 11, 23, 22, 30, tzinfo=UTC))
    day6 = DAY + timedelta(days=6)
    assert sequence_stats(tenant, world.sequence, day6, day6).total.sent == 1
    day5 = DAY + timedelta(days=5)
    assert sequence_stats(tenant, world.sequence, day5, day5).total.sent == 0


def test_an_end_before_the_start_is_refused(tenant, world):
    with pytest.raises(RangeInvalid) as refused:
        sequence_stats(tenant, world.sequence, DAY, DAY - timedelta(days=1))
    assert refused.value.code == "reversed"


def test_another_tenants_messages_and_sequences(tenant, other_tenant, world):
    theirs = build(other_tenant, name="Secretul lor")
    # Their identical sequence does not change ours, and ours is not theirs to read.
    assert counts(sequence_stats(tenant, world.sequence).total) == (12, 5, 2, 5, 2, 1, 1)
    with pytest.raises(ValueError):
        sequence_stats(tenant, theirs.sequence)
    assert sequence_summaries(tenant, [theirs.sequence.pk]) == {}


def test_older_versions_steps_show_when_they_sent(tenant, world):
    template = world.steps[0].template
    Enrollment.objects.create(tenant=tenant, lead=world.leads[0], sequence=world.sequence)
    replace_steps(world.sequence, [StepSpec(Channel.WHATSAPP, template.pk)])
    world.sequence.refresh_from_db()
    stats = sequence_stats(tenant, world.sequence)
    current, *older = stats.steps
    assert current.current and current.step.sequence_version == 2
    assert current.figures.sent == 0
    assert [row.step for row in older] == world.steps and not any(r.current for r in older)
    assert stats.total.sent == 12


def test_messages_of_a_deleted_step_still_count(tenant, world):
    Message.objects.filter(step=world.steps[2]).update(step=None)  # as SET_NULL leaves them
    stats = sequence_stats(tenant, world.sequence)
    deleted = stats.steps[-1]
    assert deleted.step is None and not deleted.current
    assert (deleted.figures.sent, deleted.figures.replied) == (2, 2)
    assert deleted.figures.read is None  # its channel is not known any more
    assert stats.total.sent == 12


def test_summaries_for_the_list(tenant, world):
    unsent = make_sequence(tenant)
    found = sequence_summaries(tenant, [world.sequence.pk, unsent.pk])
    summary = found[world.sequence.pk]
    assert (summary.sent, summary.replied, summary.positive) == (12, 5, 2)
    assert (summary.reply_rate, summary.positive_rate) == (41.7, 16.7)
    assert unsent.pk not in found


def _grow(tenant, steps: int, versions: int) -> Sequence:
    """A sequence of `steps` steps of `versions` versions, each version sent to two leads,
    one of whom replied."""
    sequence = Sequence.objects.create(tenant=tenant, name=f"{steps}x{versions}")
    for position in range(1, steps + 1):
        found = versioned_template(
            tenant, f"{steps}x{versions} {position}", Channel.WHATSAPP, count=versions
        )
        step = SequenceStep.objects.create(
            tenant=tenant,
            sequence=sequence,
            position=position,
            channel=Channel.WHATSAPP,
            template=found[0].template,
        )
        for version in found:
            for n in range(2):
                lead = make_lead(tenant)
                step_message(lead, step, version, at(0, 8))
                if n:
                    reply(lead, at(0, 9), positive())
    return sequence


def test_a_fixed_number_of_queries(tenant):
    small, large = _grow(tenant, 1, 1), _grow(tenant, 5, 3)
    with CaptureQueriesContext(connection) as one:
        small_stats = sequence_stats(tenant, small)
        [row.versions for row in small_stats.steps]
    with CaptureQueriesContext(connection) as many:
        large_stats = sequence_stats(tenant, large)
    assert len(one) == len(many) == 3
    assert large_stats.total.sent == 30 and large_stats.total.replied == 15
    assert len(large_stats.steps) == 5
    assert all(len(row.versions) == 3 for row in large_stats.steps)
    with CaptureQueriesContext(connection) as listed:
        sequence_summaries(tenant, [small.pk, large.pk])
    assert len(listed) == 1
