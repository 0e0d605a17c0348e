"""Quick replies (/outreach/settings/quick-replies/): the workspace's canned answers, listed,
created, changed and deleted by its members. outreach.quick_replies checks and saves them
(the API uses the same rules)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from cerniq.tenancy import AuthenticatedHttpRequest, scope_for
from outreach import quick_replies
from outreach.models import QuickReply, Template


class QuickReplyForm(forms.Form):
    """The fields as typed; outreach.quick_replies.problems says what is wrong."""

    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=quick_replies.MAX_NAME,
        help_text=gettext_lazy('Type "/" and the name in the composer to find it.'),
    )
    channel = forms.ChoiceField(
        label=gettext_lazy("Channel"), choices=QuickReply.ChannelChoice.choices, required=False
    )
    language = forms.ChoiceField(label=gettext_lazy("Language"), choices=Template.Language.choices)
    subject = forms.CharField(
        label=gettext_lazy("Subject"),
        max_length=quick_replies.MAX_SUBJECT,
        required=False,
        help_text=gettext_lazy("Email only; left empty, the operator writes one."),
    )
    body = forms.CharField(
        label=gettext_lazy("Text"),
        max_length=quick_replies.MAX_BODY,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text=gettext_lazy(
            "The templates' syntax: {{contact_name}}, {{company_name}}, {{county}}, "
            "{{locality}}, {{cui}}, custom fields, {{operator_name}} (you); "
            "{{contact_name|fallback}}; {Hello|Good day}."
        ),
    )

    def __init__(self, *args, tenant, instance: QuickReply | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.tenant, self.instance = tenant, instance

    def data_to_save(self) -> quick_replies.QuickReplyData:
        c = self.cleaned_data
        return quick_replies.QuickReplyData(
            name=c.get("name") or "",
            body=c.get("body") or "",
            channel=c.get("channel") or "",
            language=c.get("language") or "ro",
            subject=c.get("subject") or "",
        )

    def clean(self) -> dict:
        """The service's problems, for each field the form itself found no fault with."""
        super().clean()
        found = quick_replies.problems(self.tenant, self.data_to_save(), instance=self.instance)
        for name, problems in found.items():
            if name not in self.errors:
                for problem in problems:
                    self.add_error(name, problem)
        return self.cleaned_data


def _initial(reply: QuickReply) -> dict:
    return {
        "name": reply.name,
        "channel": reply.channel,
        "language": reply.language,
        "subject": reply.subject,
        "body": reply.body,
    }


@login_required
@require_GET
def quick_reply_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    replies = quick_replies.for_channel(scope_for(request).tenant).select_related("created_by")
    return render(
        request,
        "outreach/quick_replies.html",
        {"replies": replies, "settings_tab": "quick_replies"},
    )


@login_required
@require_http_methods(["GET", "POST"])
def quick_reply_edit(request: AuthenticatedHttpRequest, pk: int | None = None) -> HttpResponse:
    scope = scope_for(request)
    reply = scope.get_or_404(QuickReply, pk=pk) if pk is not None else None
    form = QuickReplyForm(
        request.POST or None,
        tenant=scope.tenant,
        instance=reply,
        initial=_initial(reply) if reply else {"language": "ro"},
    )
    if request.method == "POST":
        if form.is_valid():
            try:
                saved = quick_replies.save(
                    scope.tenant, form.data_to_save(), user=request.user, instance=reply
                )
            except quick_replies.QuickReplyInvalid as refused:
                for field, problems in refused.problems.items():
                    for problem in problems:
                        form.add_error(field, problem)
            else:
                messages.success(request, _("Quick reply %(name)s saved.") % {"name": saved.name})
                return redirect("outreach:quick_replies")
        messages.error(request, _("Nothing was saved: correct the fields marked below."))
    context = {"form": form, "reply": reply, "settings_tab": "quick_replies"}
    return render(
        request, "outreach/quick_reply_form.html", context, status=400 if form.errors else 200
    )


@login_required
@require_POST
def quick_reply_delete(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    reply = scope_for(request).get_or_404(QuickReply, pk=pk)
    name = reply.name
    reply.delete()
    messages.success(request, _("Quick reply %(name)s deleted.") % {"name": name})
    return redirect("outreach:quick_replies")
