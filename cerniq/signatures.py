"""Signature checks over the raw request bytes, in constant time (SPEC security contract).

`verify_hmac` for providers that sign the body with a shared secret; `verify_svix` for the
Svix scheme Resend uses (id.timestamp.body, base64 HMAC-SHA256, timestamp tolerance).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
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


def verify_svix(
    raw: bytes,
    headers: Mapping[str, str],
    secret: str,
    tolerance: int = 300,
    *,
    now: float | None = None,
) -> bool:
    """Svix signature check (Resend; providers.md §3.4), over the raw body.

    Signed content `"{svix-id}.{svix-timestamp}.{body}"`, HMAC-SHA256 with the base64
    key after `whsec_`; `svix-signature` is a space-separated list of `v1,<base64>` (more
    than one during a secret rotation; any match is enough). A timestamp more than
    `tolerance` seconds away from now is refused (replays). `webhook-*` headers are
    accepted as aliases, like the Svix libraries do. Raises ValueError for a bad secret
    (configuration), returns False for anything wrong with the request.
    """
    key = _svix_key(secret)
    lowered = {str(k).lower(): v for k, v in headers.items()}

    def header(name: str) -> str:
        return lowered.get(f"svix-{name}") or lowered.get(f"webhook-{name}") or ""

    msg_id, timestamp, signatures = header("id"), header("timestamp"), header("signature")
    if not (msg_id and timestamp and signatures):
        return False
    try:
        sent_at = int(timestamp)
    except ValueError:
        return False
    current = time.time() if now is None else now
    if abs(current - sent_at) > tolerance:
        return False
    signed = f"{msg_id}.{timestamp}.".encode() + raw
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest())
    matched = False
    for entry in signatures.split():
        version, _, signature = entry.partition(",")
        if version == "v1" and hmac.compare_digest(expected, signature.encode("ascii", "replace")):
            matched = True  # keep looping: the time taken does not depend on which matched
    return matched


# --- Parsing ---------------------------------------------------------------------------
