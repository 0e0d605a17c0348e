"""Forms of the sequences and templates pages (all scoped to one tenant), and the lead
page's "record an opt-out"."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from cerniq.models import Tenant
from console.forms_step_conditions import StepConditions, initial_rows
from outreach import spintax
from outreach.models import Channel, OptOutRecord, Sequence, SequenceStep, Template
from outreach.sequences import MAX_COMPANY_PAUSE_DAYS, MAX_STEPS
from outreach.template_versions import MAX_VERSIONS


class SequenceForm(forms.ModelForm):
    # The reply options: left out of a post (an older page, a script), each keeps its value.
    stop_on_reply = forms.TypedChoiceField(
        label=_("When the lead replies"),
        choices=[
            ("True", _("Stop this sequence when the lead replies")),
            ("False", _("Nurture: go on after a reply unless it is negative or an opt-out")),
        ],
        coerce=lambda value: value == "True",
        empty_value=None,
        required=False,
        widget=forms.RadioSelect(attrs={"class": "choice-list"}),
    )
    company_reply = forms.ChoiceField(
        label=_("When another contact of the same company replies"),
        choices=Sequence.CompanyReply.choices,
        required=False,
        widget=forms.RadioSelect(attrs={"class": "choice-list"}),
    )
    company_pause_days = forms.IntegerField(
        label=_("Days to pause the other contacts"),
        help_text=_("Only when they are paused: they go on after this many days."),
        min_value=1,
        max_value=MAX_COMPANY_PAUSE_DAYS,
        required=False,
    )

    class Meta:
        model = Sequence
        fields = [
            "name",
            "description",
            "is_active",
            "fallback_sequence",
            "stop_on_reply",
            "company_reply",
            "company_pause_days",
        ]
        labels = {
            "name": _("Name"),
            "description": _("Description"),
            "is_active": _("Active"),
            "fallback_sequence": _("Fallback sequence"),
        }

    def __init__(self, *args: Any, tenant: Tenant, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tenant = tenant
        fallback = Sequence.objects.filter(tenant=tenant)
        if self.instance.pk:
            fallback = fallback.exclude(pk=self.instance.pk)
        field = self.fields["fallback_sequence"]
        assert isinstance(field, forms.ModelChoiceField), "a foreign key's form field"
        field.queryset = fallback
        self.fields["description"].widget.attrs["rows"] = 2

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        taken = Sequence.objects.filter(tenant=self.tenant, name=name)
        if self.instance.pk:
            taken = taken.exclude(pk=self.instance.pk)
        if taken.exists():
            raise ValidationError(_("A sequence with this name already exists."))
        return name

    def clean_stop_on_reply(self) -> bool:
        value = self.cleaned_data.get("stop_on_reply")
        return self.instance.stop_on_reply if value is None else value

    def clean_company_reply(self) -> str:
        return self.cleaned_data.get("company_reply") or self.instance.company_reply

    def clean_company_pause_days(self) -> int:
        value = self.cleaned_data.get("company_pause_days")
        return self.instance.company_pause_days if value is None else value


class StepForm(forms.Form):
    channel = forms.ChoiceField(label=_("Channel"), choices=Channel.choices)
    delay_value = forms.IntegerField(label=_("Delay"), min_value=0, max_value=10000, initial=0)
    delay_unit = forms.ChoiceField(
        label=_("Delay unit"),
        choices=SequenceStep.DelayUnit.choices,
        initial=SequenceStep.DelayUnit.WORKING_DAYS,
    )
    template = forms.ModelChoiceField(label=_("Template"), queryset=Template.objects.none())

    def __init__(self, *args: Any, tenant: Tenant, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tenant = tenant
        field = self.fields["template"]
        assert isinstance(field, forms.ModelChoiceField), "declared a ModelChoiceField above"
        field.queryset = Template.objects.filter(tenant=tenant)
        stored = self.initial.get("conditions") or {}
        self.conditions = StepConditions(self, initial_rows(stored), stored)

    def has_changed(self) -> bool:
        # An extra row counts as filled in only once a template is chosen.
        return bool(self.data.get(self.add_prefix("template"))) or bool(self.initial)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or self.cleaned_data
        conditions = self.conditions.clean()
        if conditions is not None:
            data["conditions"] = conditions
        return data


class BaseStepFormSet(forms.BaseFormSet):
    def clean(self) -> None:
        """Check each step as the model would (channel/template match, no first-message
        link), numbering the remaining steps as they will be saved."""
        if any(self.errors):
            return
        position = 0
        for form in self.forms:
            if not form.has_changed() or self._should_delete_form(form):
                continue
            position += 1
            data = form.cleaned_data
            step = SequenceStep(
                tenant_id=form.tenant.pk,
                position=position,
                channel=data["channel"],
                delay_value=data["delay_value"],
                delay_unit=data["delay_unit"],
                template=data["template"],
            )
            try:
                step.clean()
            except ValidationError as refused:
                for field, problems in refused.message_dict.items():
                    form.add_error(field if field in form.fields else None, problems)
        if not position:
            raise ValidationError(_("A sequence needs at least one step."))

    def specs(self) -> list[dict[str, Any]]:
        return [
            form.cleaned_data
            for form in self.forms
            if form.has_changed() and not self._should_delete_form(form)
        ]


# At most MAX_STEPS rows are built, whatever TOTAL_FORMS says; more is a form error.
StepFormSet = forms.formset_factory(
    StepForm,
    formset=BaseStepFormSet,
    extra=1,
    can_delete=True,
    max_num=MAX_STEPS,
    absolute_max=MAX_STEPS,
    validate_max=True,
)


class TemplateForm(forms.ModelForm):
    # Saved by outreach.ab_winners.decisions.set_mode (turning it off withdraws a waiting
    # suggestion), not by the form; left out of a post, the template keeps its mode.
    ab_mode = forms.ChoiceField(
        label=_("A/B winner"), choices=Template.ABMode.choices, required=False
    )

    class Meta:
        model = Template
        fields = ["name", "channel", "language", "is_active"]
        labels = {
            "name": _("Name"),
            "channel": _("Channel"),
            "language": _("Language"),
            "is_active": _("Active"),
        }

    def __init__(self, *args: Any, tenant: Tenant, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tenant = tenant
        self.fields["ab_mode"].initial = self.instance.ab_mode

    def clean_ab_mode(self) -> str:
        return self.cleaned_data.get("ab_mode") or self.instance.ab_mode

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        taken = Template.objects.filter(tenant=self.tenant, name=name)
        if self.instance.pk:
            taken = taken.exclude(pk=self.instance.pk)
        if taken.exists():
            raise ValidationError(_("A template with this name already exists."))
        return name


class VersionForm(forms.Form):
    id = forms.IntegerField(required=False, widget=forms.HiddenInput)
    subject = forms.CharField(label=_("Subject (email)"), required=False, max_length=255)
    body = forms.CharField(
        label=_("Body"),
        max_length=spintax.MAX_SOURCE_CHARS,
        widget=forms.Textarea(attrs={"rows": 5}),
    )
    weight = forms.IntegerField(label=_("Weight"), min_value=0, max_value=1000, initial=100)
    is_active = forms.BooleanField(label=_("Active"), required=False, initial=True)

    def __init__(self, *args: Any, channel: str, custom_fields: set[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.channel = channel
        self.custom_fields = custom_fields

    def has_changed(self) -> bool:
        # An extra version counts as added only once a body or subject is typed.
        return bool(self.initial) or any(
            (self.data.get(self.add_prefix(name)) or "").strip() for name in ("body", "subject")
        )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if self.channel not in spintax.CHANNEL_LIMITS:
            return data
        for name in ("body", "subject"):
            text = data.get(name)
            if text:
                problems = spintax.validate(
                    text, channel=self.channel, custom_fields=self.custom_fields
                )
                for problem in problems:
                    self.add_error(name, problem)
        return data


class BaseVersionFormSet(forms.BaseFormSet):
    def filled(self) -> list[dict[str, Any]]:
        return [form.cleaned_data for form in self.forms if form.has_changed()]


VersionFormSet = forms.formset_factory(
    VersionForm,
    formset=BaseVersionFormSet,
    extra=1,
    min_num=1,
    validate_min=True,
    max_num=MAX_VERSIONS,
    absolute_max=MAX_VERSIONS,
    validate_max=True,
)


class RecordOptOutForm(forms.Form):
    """Where the lead asked us to stop, and why. The reason's rule is the service's
    (outreach.optout_manual), whose refusals come back as this form's errors."""

    channel = forms.ChoiceField(
        label=_("Where did the lead ask?"),
        choices=OptOutRecord.AskedOn.choices,
        initial=OptOutRecord.AskedOn.ALL,
        widget=forms.RadioSelect,
    )
    reason = forms.CharField(label=_("Why"), required=False, strip=False, widget=forms.Textarea)
