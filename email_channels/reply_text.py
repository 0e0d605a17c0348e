"""The words a person wrote in an email reply: HTML read as text, the quoted thread left out.

A reply carries the email it answers below it ("> …" lines, or a block after "On … wrote:",
"În … a scris:", Outlook's "-----Original Message-----" or its "From: / Sent:" header
block). Our own emails end with an unsubscribe line, so reading the quote would make a
"Mulțumesc, revin" an opt-out and feed our words to the triage. What is read is the part
above the quote; the whole text is kept with the message (its raw data).

No library covers Romanian mail clients' attribution lines (email-reply-parser and
mail-parser-reply know English and a few other languages), so the few forms are listed
here; a form not listed leaves the quote in, which only costs precision, never a reply.
"""

from __future__ import annotations

import re
from html import unescape

_BREAKS = re.compile(r"(?i)<br\s*/?>|</p\s*>|</div\s*>|</li\s*>|</tr\s*>")
_TAGS = re.compile(r"<[^>]*>")
_DROP = re.compile(r"(?is)<(script|style|head)\b.*?</\1\s*>")
# Mail clients put the quoted email in a <blockquote> (Gmail, Apple Mail, Thunderbird).
_BLOCKQUOTE = re.compile(r"(?is)<blockquote\b.*</blockquote\s*>")

# A line that starts the quoted email, in the clients' own words (English and Romanian).
_ATTRIBUTION = re.compile(
    r"""(?imx)^\s*(
        on\b.{0,300}\bwrote:\s*$                       # On Mon, 1 Aug 2026, Ana <a@b.ro> wrote:
      | (în|in)\b.{0,300}\ba\s+scris:\s*$              # În lun., 1 aug. 2026, Ana <…> a scris:
      | -{2,}\s*(original\s+message|mesaj(ul)?\s+original|forwarded\s+message
               |mesaj\s+redirecționat|mesaj\s+redirectionat)\s*-{2,}\s*$
      | _{20,}\s*$                                     # Outlook's rule above its header block
      | (from|de\s+la):\s.+\n\s*(sent|date|trimis|data):\s   # Outlook's header block
    )"""
)


def html_to_text(html: str) -> str:
    """A readable text version of an HTML email (line breaks kept, tags dropped)."""
    text = _DROP.sub("", html)
    text = _BREAKS.sub("\n", text)
    text = unescape(_TAGS.sub("", text)).replace("\xa0", " ")
    lines = [line.strip() for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def without_quote(text: str) -> str:
    """`text` up to where the quoted email starts, without "> " lines."""
    text = (text or "").replace("\r\n", "\n").replace("\r", "\n")
    match = _ATTRIBUTION.search(text)
    if match is not None:
        text = text[: match.start()]
    lines = [line for line in text.split("\n") if not line.lstrip().startswith(">")]
    return "\n".join(lines).strip()


def reply_text(text: str | None, html: str | None) -> str:
    """The new words of a reply: its text part, else its HTML read as text (the quoted
    <blockquote> dropped first), without the quoted email."""
    if text and text.strip():
        return without_quote(text)
    if html and html.strip():
        return without_quote(html_to_text(_BLOCKQUOTE.sub("", html)))
    return ""
