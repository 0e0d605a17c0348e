"""The sequences pages: list, create and edit (steps saved as a new version when needed)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import Count, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from cerniq.tenancy import scope_for
from console.forms import SequenceForm, StepFormSet
from outreach.models import Enrollment, Sequence, SequenceStep
from outreach.sequences import EnrollmentError, StepSpec, replace_steps, steps_of


def _count(qs) -> Coalesce:  # type: ignore[no-untyped-def]
    counted = qs.order_by().values("sequence").annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


@login_required
@require_GET
def sequence_list(request: HttpRequest) -> HttpResponse:
    scope = scope_for(request)
    sequences = (
        scope.queryset(Sequence)
        .select_related("fallback_sequence")
        .annotate(
            steps_count=_count(
                SequenceStep.objects.filter(
                    sequence=OuterRef("pk"), sequence_version=OuterRef("version")
                )
            ),
            active_enrollments=_count(
                Enrollment.objects.filter(sequence=OuterRef("pk"), status=Enrollment.Status.ACTIVE)
            ),
        )
        .order_by("name")
    )
    return render(request, "outreach/sequences.html", {"sequences": sequences})


def _step_initial(sequence: Sequence) -> list[dict]:
    return [
        {
            "channel": step.channel,
            "delay_value": step.delay_value,
            "delay_unit": step.delay_unit,
            "template": step.template_id,
        }
        for step in steps_of(sequence)
    ]


def _same_steps(sequence: Sequence, specs: list[StepSpec]) -> bool:
    current = [
        StepSpec(step.channel, step.template_id, step.delay_value, step.delay_unit)
        for step in steps_of(sequence)
    ]
    return current == specs


@login_required
@require_http_methods(["GET", "POST"])
def sequence_edit(request: HttpRequest, pk: int | None = None) -> HttpResponse:
    scope = scope_for(request)
    tenant = scope.tenant
    sequence = scope.get_or_404(Sequence, pk=pk) if pk is not None else Sequence(tenant=tenant)
    if request.method == "POST":
        form = SequenceForm(request.POST, instance=sequence, tenant=tenant)
        steps = StepFormSet(request.POST, prefix="steps", form_kwargs={"tenant": tenant})
        if form.is_valid() and steps.is_valid():
            specs = [
                StepSpec(
                    channel=data["channel"],
                    template_id=data["template"].pk,
                    delay_value=data["delay_value"],
                    delay_unit=data["delay_unit"],
                )
                for data in steps.specs()
            ]
            try:
                with transaction.atomic():
                    saved = form.save()
                    if pk is not None and _same_steps(saved, specs):
                        version = saved.version
                    else:
                        version = replace_steps(saved, specs)
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
    context = {"form": form, "steps": steps, "sequence": sequence if pk is not None else None}
    return render(request, "outreach/sequence_form.html", context)
