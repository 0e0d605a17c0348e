"""The sequences pages: list (with each sequence's sent, reply and positive rates), create
and edit (steps saved as a new version when needed; the page also shows the sequence's
results per step and template version, outreach.analytics.sequences)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from cerniq.models import Tenant
from cerniq.tenancy import scope_for
from console.forms import SequenceForm, StepFormSet
from console.forms_sequence_stats import SequenceStatsRangeForm
from console.forms_step_conditions import ADD_BUTTON
from outreach.analytics.sequences import SequenceStats, Summary, sequence_stats, sequence_summaries
from outreach.models import Sequence
from outreach.sequences import EnrollmentError, StepSpec, save_steps, steps_of, with_counts
from outreach.step_condition_words import describe


@login_required
@require_GET
def sequence_list(request: HttpRequest) -> HttpResponse:
    scope = scope_for(request)
    sequences = list(
        with_counts(scope.queryset(Sequence).select_related("fallback_sequence")).order_by("name")
    )
    results = sequence_summaries(scope.tenant, [sequence.pk for sequence in sequences])
    rows = [(sequence, results.get(sequence.pk, Summary())) for sequence in sequences]
    return render(request, "outreach/sequences.html", {"sequences": sequences, "rows": rows})


def _results(request: HttpRequest, tenant: Tenant, sequence: Sequence) -> dict:
    """The sequence's results over the range the page asks for (?start=&end=, all time
    when empty); a bad range is a form error and no table."""
    form = SequenceStatsRangeForm(request.GET or None)
    stats: SequenceStats | None = None
    if not form.is_bound:
        stats = sequence_stats(tenant, sequence)
    elif form.is_valid():
        stats = sequence_stats(tenant, sequence, *form.range())
    return {"stats_form": form, "stats": stats}


def _step_initial(sequence: Sequence) -> list[dict]:
    return [
        {
            "channel": step.channel,
            "delay_value": step.delay_value,
            "delay_unit": step.delay_unit,
            "template": step.template_id,
            "conditions": step.conditions,
        }
        for step in steps_of(sequence)
    ]


def _saved_steps(sequence: Sequence) -> list[dict]:
    """The current version's steps as the page lists them, conditions in words."""
    return [{"step": step, "conditions": describe(step.conditions)} for step in steps_of(sequence)]


@login_required
@require_http_methods(["GET", "POST"])
def sequence_edit(request: HttpRequest, pk: int | None = None) -> HttpResponse:
    scope = scope_for(request)
    tenant = scope.tenant
    sequence = scope.get_or_404(Sequence, pk=pk) if pk is not None else Sequence(tenant=tenant)
    if request.method == "POST":
        form = SequenceForm(request.POST, instance=sequence, tenant=tenant)
        # The stored steps as initial data: a step's stored conditions are kept unless
        # its rows replace them (console.forms_step_conditions).
        steps = StepFormSet(
            request.POST,
            prefix="steps",
            initial=_step_initial(sequence) if pk is not None else None,
            form_kwargs={"tenant": tenant},
        )
        # "Add a condition" shows the form again with one more empty row, saving nothing.
        if ADD_BUTTON not in request.POST and form.is_valid() and steps.is_valid():
            specs = [
                StepSpec(
                    channel=data["channel"],
                    template_id=data["template"].pk,
                    delay_value=data["delay_value"],
                    delay_unit=data["delay_unit"],
                    conditions=data["conditions"],
                )
                for data in steps.specs()
            ]
            try:
                with transaction.atomic():
                    saved = form.save()
                    version = save_steps(saved, specs, created=pk is None)
            except EnrollmentError as refused:
                steps._non_form_errors = steps.error_class([str(refused)])
            else:
                messages.success(
                    request,
                    _("Sequence %(name)s saved as version %(version)s.")
                    % {"name": saved.name, "version": version},
                )
                return redirect("outreach:sequence", pk=saved.pk)
    else:
        form = SequenceForm(instance=sequence, tenant=tenant)
        steps = StepFormSet(
            prefix="steps",
            initial=_step_initial(sequence) if pk is not None else None,
            form_kwargs={"tenant": tenant},
        )
    context: dict[str, Any] = {
        "form": form,
        "steps": steps,
        "sequence": sequence if pk is not None else None,
    }
    if pk is not None:
        context |= _results(request, tenant, sequence)
        context["saved_steps"] = _saved_steps(sequence)
    return render(request, "outreach/sequence_form.html", context)
