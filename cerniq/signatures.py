"""Signature checks over the raw request bytes, in constant time (docs/design.md, security).

`verify_hmac` for providers that sign the body with a shared secret; `verify_svix` for the
Svix scheme Resend uses (id.timestamp.body, base64 HMAC-SHA256, timestamp tolerance),
checked by the `svix` library rather than by hand.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import re
import time
from collections.abc import Mapping


def verify_hmac(
    raw: bytes, secret: str | bytes, signature_hex: str | None, algo: str = "sha256"
) -> bool:
    """HMAC(secret, raw body) in hex equals `signature_hex` (constant time).

    Accepts the `<algo>=<hex>` form too (Meta's `X-Hub-Signature-256: sha256=...`).
    An empty secret never verifies anything.
    """
    if not secret or not signature_hex:
        return False
    key = secret.encode() if isinstance(secret, str) else secret
    given = signature_hex.strip()
    if given.lower().startswith(f"{algo.lower()}="):
        given = given.split("=", 1)[1]
    expected = hmac.new(key, raw, algo).hexdigest()
    return hmac.compare_digest(expected.encode(), given.lower().encode("ascii", "replace"))


def _svix_key(secret: str) -> bytes:
    encoded = secret.removeprefix("whsec_")
    try:
        key = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("webhook secret is not whsec_<base64>") from None
    if not key:
        raise ValueError("webhook secret is empty")
    return key


_SVIX_ENTRY = re.compile(r"v1,[A-Za-z0-9+/]{1,200}={0,2}")
SVIX_TOLERANCE = 300  # seconds; the Svix library refuses anything further from its clock


def verify_svix(
    raw: bytes, headers: Mapping[str, str], secret: str, tolerance: int = SVIX_TOLERANCE
) -> bool:
    """Svix signature check (Resend; docs/providers.md §3.4), over the raw body, by the `svix`
    library: `Webhook(secret).verify(raw, headers)`.

    Signed content `"{svix-id}.{svix-timestamp}.{body}"`, HMAC-SHA256 with the base64 key
    after `whsec_`; `svix-signature` is a space-separated list of `v1,<base64>` (more than
    one during a secret rotation; any match is enough); a timestamp more than 5 minutes
    from now is refused (replays). `webhook-*` headers are accepted as aliases, as the
    library does. Before the library we refuse what it would read loosely or fail on: a
    timestamp that is not whole seconds, a timestamp beyond `tolerance` (it can only
    narrow the library's 5 minutes), and malformed signature entries (which would make
    it give up before reaching a good one). Raises ValueError for a bad secret
    (configuration), returns False for anything wrong with the request.
    """
    # Imported here: the svix package loads its whole API client on import (~26 MiB and
    # 560 modules per process, httpx included), and only a web process receiving a Resend
    # webhook needs it, never a worker (bench/results/worker_rss.md).
    from svix.webhooks import Webhook, WebhookVerificationError

    key = _svix_key(secret)
    lowered = {str(k).lower(): v for k, v in headers.items()}

    def header(name: str) -> str:
        return lowered.get(f"svix-{name}") or lowered.get(f"webhook-{name}") or ""

    msg_id, timestamp, signatures = header("id"), header("timestamp"), header("signature")
    entries = [entry for entry in signatures.split() if _SVIX_ENTRY.fullmatch(entry)]
    if not (msg_id and entries) or not (timestamp.isascii() and timestamp.isdigit()):
        return False
    if len(timestamp) > 12 or abs(time.time() - int(timestamp)) > tolerance:
        return False
    signed = {"svix-id": msg_id, "svix-timestamp": timestamp, "svix-signature": " ".join(entries)}
    try:
        Webhook(key).verify(raw, signed)
    except (WebhookVerificationError, ValueError):  # ValueError: a body that is not UTF-8
        return False
    return True


# --- Parsing ---------------------------------------------------------------------------
