"""The inbox composer's endpoints: send a message (through outreach.manual.send_manual, the
one manual send path) and render a quick reply for the lead.

With htmx the send answers with the composer itself: empty after a send (and the
`HX-Trigger: cerniq:sent` header the thread listens to), or with what was typed and the
reason after a refusal. A plain POST redirects to the thread with a message; a refused one
keeps the typed text in the session for the composer to show again."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from cerniq.tenancy import AuthenticatedHttpRequest, scope_for
from outreach import quick_replies
from outreach.manual import SendRefused, send_manual
from outreach.models import Channel, Lead, QuickReply
from outreach.templatetags.composer import FORM_TEMPLATE, Kept, composer_context, draft_key

SENT_EVENT = "cerniq:sent"
MAX_KEPT_TEXT = 50_000


def _lead(request: AuthenticatedHttpRequest, pk: int) -> Lead:
    return scope_for(request).get_or_404(Lead.objects.select_related("tenant"), pk=pk)


def _answer(request: AuthenticatedHttpRequest, lead: Lead, kept: Kept) -> HttpResponse:
    context = composer_context(request, lead, kept)
    return render(request, FORM_TEMPLATE, context)


@login_required
@require_POST
def send(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    lead = _lead(request, pk)
    channel = request.POST.get("channel") or ""
    if channel not in (Channel.WHATSAPP, Channel.EMAIL_WARM):
        channel = Channel.WHATSAPP if lead.phone else Channel.EMAIL_WARM
    text = request.POST.get("text", "")
    subject = request.POST.get("subject", "") if channel == Channel.EMAIL_WARM else ""
    files = request.FILES.getlist("attachments") if channel == Channel.EMAIL_WARM else []
    # One image or PDF with a WhatsApp message (outreach.media).
    media = request.FILES.get("media") if channel == Channel.WHATSAPP else None
    htmx = request.headers.get("HX-Request") == "true"
    try:
        send_manual(
            lead,
            text,
            user=request.user,
            reason="operator message (inbox)",
            channel=channel,
            subject=subject,
            files=files,
            media=media,
        )
    except SendRefused as refused:
        error = str(refused)
        if files or media:
            error = f"{error} " + _("Nothing was sent: choose the files again.")
        kept = Kept(channel, text[:MAX_KEPT_TEXT], subject[:255], error)
        if htmx:
            return _answer(request, lead, kept)
        request.session[draft_key(lead)] = {
            "channel": kept.channel,
            "text": kept.text,
            "subject": kept.subject,
            "error": kept.error,
        }
        messages.error(request, error)
        return redirect("outreach:inbox_thread", lead.pk)
    done = _("Email queued.") if channel == Channel.EMAIL_WARM else _("Message queued.")
    if htmx:
        response = _answer(request, lead, Kept(channel=channel, sent=True))
        response["HX-Trigger"] = SENT_EVENT
        return response
    messages.success(request, done)
    return redirect("outreach:inbox_thread", lead.pk)


@login_required
@require_GET
def quick_reply(request: AuthenticatedHttpRequest, pk: int, reply_pk: int) -> JsonResponse:
    """The quick reply's text (and subject) as this lead reads it: variables filled in."""
    lead = _lead(request, pk)
    reply = scope_for(request).get_or_404(QuickReply, pk=reply_pk)
    rendered = quick_replies.render_for(reply, lead, request.user)
    return JsonResponse({"text": rendered.text, "subject": rendered.subject})
