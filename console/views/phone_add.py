"""Adding a WhatsApp number to the workspace (its admins): the form over
whatsapp.numbers.add_phone, which `POST /api/v1/phones/` calls too."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from cerniq.tenancy import scope_for
from whatsapp import numbers


class AddPhoneForm(forms.Form):
    number = forms.CharField(
        label=gettext_lazy("WhatsApp number"),
        max_length=32,
        help_text=gettext_lazy("As written on the phone, e.g. 0740 000 101 or +40 740 000 101."),
    )
    label = forms.CharField(
        label=gettext_lazy("Name on the phones page"),
        max_length=64,
        required=False,
        help_text=gettext_lazy("Optional, e.g. Sales 1."),
    )
    provider = forms.ChoiceField(label=gettext_lazy("Connected through"))
    account_id = forms.CharField(
        label=gettext_lazy("Account at the provider"),
        max_length=128,
        required=False,
        help_text=gettext_lazy(
            "Leave it empty for TimelinesAI: the account is found from the number. For the "
            "WhatsApp Cloud API, the number's Phone number ID from WhatsApp Manager."
        ),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        provider = self.fields["provider"]
        assert isinstance(provider, forms.ChoiceField), "declared a ChoiceField above"
        provider.choices = numbers.provider_choices()


@login_required
@require_http_methods(["GET", "POST"])
def add_phone(request: HttpRequest) -> HttpResponse:
    scope = scope_for(request)
    if not scope.is_admin:
        raise PermissionDenied(_("Only an admin of this workspace can add a number."))
    form = AddPhoneForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            phone = numbers.add_phone(scope.tenant, **form.cleaned_data)
        except ValidationError as refused:
            form.add_error(None, refused)
        except numbers.PhoneExists as exists:
            form.add_error("number", str(exists))
        else:
            messages.success(
                request,
                _("%(number)s is added. It starts its warm-up today.") % {"number": phone.number},
            )
            return redirect("outreach:phones")
    return render(request, "outreach/phone_add.html", {"form": form})
