"""Erase a person (GDPR art. 17): one service for the lead page, the API and the command.

In one transaction: the lead is opted out of every channel (its sequences stop, its
queued messages are cancelled); an audit row (`Erasure`) records who asked, how and why;
a receipt per provider holding the person is written (outreach.propagation: Instantly
deletes its leads, found by our ids and by the address); every row the data-subject
export finds (outreach.person_data) is blanked as its section says (outreach.scrubbing);
and the phone and address go on the do-not-contact list as one-way hashes
(outreach.suppression.digest), so the person is never imported or written to again and
nothing readable is kept. After commit the providers are called and the erasure is
written to the ledger beside the backups (outreach.erasure_ledger), so a database
restored from before it is erased again.

What stays: the lead row (as "[erased]", no address), its journey and messages without
their text, counts and stages, so every figure is unchanged.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from cerniq import reasons
from cerniq.models import Tenant
from cerniq.outbound.events import emit
from outreach import erasure_ledger, propagation
from outreach import reasons as codes
from outreach.models import Erasure, Lead, Suppression
from outreach.optout import opt_out
from outreach.person_data import sections
from outreach.scrubbing import Person
from outreach.suppression import digest

log = logging.getLogger(__name__)

REASON_MIN = 15  # characters: who asked, and how


class ErasureRefused(Exception):
    """The erasure cannot be done as asked; the text says why, for the person asking."""


def hashes_of(lead: Lead) -> dict[str, str]:
    """The one-way hashes the lead's phone and address are listed by, by kind."""
    found = {}
    if lead.phone:
        found[Suppression.Kind.PHONE.value] = digest(Suppression.Kind.PHONE, lead.phone)
    if lead.email:
        found[Suppression.Kind.EMAIL.value] = digest(Suppression.Kind.EMAIL, lead.email)
    return found


def check_reason(reason: str) -> str:
    reason = " ".join((reason or "").split())
    if len(reason) < REASON_MIN:
        raise ErasureRefused(
            _("Say who asked for the erasure and how, in at least %(count)d characters.")
            % {"count": REASON_MIN}
        )
    return reason


def erase_person(lead: Lead, *, by: User | None, reason: str, via: str) -> Erasure:
    """Erase the person `lead` is; the audit row. Refused (ErasureRefused) without a reason
    or for a person already erased; nothing is changed then."""
    reason = check_reason(reason)
    with transaction.atomic():
        lead = Lead.objects.select_for_update().select_related("tenant").get(pk=lead.pk)
        if lead.erased_at is not None:
            when = formats.date_format(timezone.localtime(lead.erased_at), "DATETIME_FORMAT")
            raise ErasureRefused(_("This person was already erased on %(when)s.") % {"when": when})
        now = timezone.now()
        hashes = hashes_of(lead)
        opt_out(lead, "erasure", tell_providers=False)
        erasure = Erasure.objects.create(
            tenant_id=lead.tenant_id,
            lead=lead,
            lead_ref=lead.pk,
            requested_by=by,
            via=via,
            reason=reason,
        )
        propagation.start(lead, cause=propagation.Cause.ERASURE, at=now, erasure=erasure)
        erasure.scrubbed = scrub(lead)
        erasure.save(update_fields=["scrubbed"])
        list_hashes(lead.tenant_id, hashes, erasure.pk)
        emit(lead.tenant_id, "lead.erased", {"lead_id": lead.pk})
        transaction.on_commit(lambda: erasure_ledger.write(erasure, hashes))
    return erasure


def scrub(lead: Lead) -> dict[str, int]:
    """Blank every row naming the person (found first, all of them, then blanked): rows
    changed, by section."""
    person = Person.of(lead)
    found = [(s, list(s.rows(lead).values_list("pk", flat=True))) for s in sections()]
    scrubbed = {}
    for section, pks in found:
        if pks:
            rows = section.model._default_manager.filter(pk__in=pks)
            scrubbed[section.name] = section.scrub(rows, person)
    return scrubbed


def list_hashes(tenant_id: int, hashes: dict[str, str], erasure_id: int) -> int:
    """The hashes on the tenant's list (once); how many were not there yet."""
    reason = reasons.code(codes.SUPPRESSED_ERASED, erasure=erasure_id)
    added = 0
    for value in hashes.values():
        _, created = Suppression.objects.get_or_create(
            tenant_id=tenant_id,
            digest=value,
            defaults={"reason": reason, "source": Suppression.Source.ERASURE},
        )
        added += created
    return added


@dataclass
class Reapplied:
    read: int = 0  # ledger entries
    erased_again: int = 0  # people a restored database still held
    hashes_listed: int = 0  # hashes a restored database did not list


def reapply() -> Reapplied:
    """After a restore: erase again, from the ledger, whoever the database still holds (the
    same lead id, and its phone or address hashes as the ledger says: an id alone could be
    a newer lead), and list every erased hash. Providers are not called again: they forgot
    the person at the first erasure, and a restore of ours gives them nothing back."""
    done = Reapplied()
    users = get_user_model()
    for entry in erasure_ledger.entries():
        done.read += 1
        tenant = Tenant.objects.filter(slug=entry.get("tenant")).first()
        hashes = {str(k): str(v) for k, v in (entry.get("hashes") or {}).items()}
        if tenant is None:
            continue
        with transaction.atomic():
            lead = (
                Lead.objects.select_for_update()
                .filter(tenant=tenant, pk=entry.get("lead_id"), erased_at__isnull=True)
                .first()
            )
            if lead is not None and set(hashes_of(lead).values()) & set(hashes.values()):
                opt_out(lead, "erasure", tell_providers=False)
                by = users.objects.filter(username=entry.get("requested_by") or None).first()
                erasure = Erasure.objects.create(
                    tenant=tenant,
                    lead=lead,
                    lead_ref=lead.pk,
                    requested_by=by,
                    via=Erasure.Via.RESTORE,
                    reason=f"Erasure #{entry.get('erasure_id')} of {entry.get('erased_at')}, "
                    "applied again after a restore of the database",
                )
                erasure.scrubbed = scrub(lead)
                erasure.save(update_fields=["scrubbed"])
                done.erased_again += 1
            done.hashes_listed += list_hashes(tenant.pk, hashes, int(entry.get("erasure_id") or 0))
    if done.erased_again or done.hashes_listed:
        log.warning(
            "erasure ledger applied again: %s people erased, %s hashes listed",
            done.erased_again,
            done.hashes_listed,
        )
    return done


def reapply_safely() -> str:
    """`reapply`, said in one line; a ledger that cannot be read is logged, never raised (a
    migrate must not fail for it), and said."""
    try:
        done = reapply()
    except Exception as error:  # noqa: BLE001 - the storage may be a bucket out of reach
        log.exception("the erasure ledger could not be applied again")
        return f"The erasure ledger could not be read ({type(error).__name__}): run it again."
    return (
        f"Erasure ledger: {done.read} erasures read, {done.erased_again} people erased again, "
        f"{done.hashes_listed} hashes listed again."
    )
