"""A brochure's PDF: checked when it is uploaded, read (pypdf) in the worker.

The upload check refuses, with a sentence for the form, what no worker could read: an
empty file, one over MAX_UPLOAD_BYTES, a file that is not a PDF (by its name, its first
bytes and pypdf opening it), one protected by a password, one with no pages or more than
MAX_PAGES, and a scanned PDF without a text layer (no page gives any text).

Reading keeps the text (NFC, Romanian cedilla letters ş/ţ turned into the comma-below
ș/ț a PDF's fonts often lack, at most MAX_TEXT_CHARS), its headings (lines set larger than
the body text, else short lines in capitals) and its priced products ("Azotat de amoniu
34,4% N: 2.450 lei/t" gives the product and "2.450 lei/t"): what the drafts are made from.
"""

from __future__ import annotations

import contextlib
import io
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from django.utils.translation import gettext as _

MAX_UPLOAD_BYTES = 10 * 1024 * 1024
MAX_PAGES = 60
MAX_TEXT_CHARS = 60_000  # kept on the row; the prompt takes less (outreach.brochures.ai)
MAX_HEADINGS = 12
MAX_PRODUCTS = 30
MAX_NAME_CHARS = 80
HEADING_SCALE = 1.15  # a line this much larger than the body text is a heading

_CEDILLA = str.maketrans({"ş": "ș", "Ş": "Ș", "ţ": "ț", "Ţ": "Ț"})
_AMOUNT = r"\d{1,3}(?:[.\s]\d{3})+(?:,\d{1,2})?|\d+(?:[.,]\d{1,2})?"
_CURRENCY = r"(?:lei|ron|euro|eur)\b|€"
_UNIT = r"[a-zăâîșț]{1,8}\.?(?:\s?\d+\s?(?:kg|l|g))?"
PRICE_RE = re.compile(
    rf"(?<![\w.,])(?P<amount>{_AMOUNT})\s?(?P<currency>{_CURRENCY})"
    rf"(?:\s?(?:/|pe)\s?(?P<unit>{_UNIT}))?",
    re.IGNORECASE,
)
_LEADERS = " \t:;-–—.…·•*|=>"


class BrochureRefused(ValueError):
    """The file cannot be read as a brochure; the text says why, for the upload form."""


class NoText(BrochureRefused):
    """The PDF opens but has no text layer (a scan)."""


def _no_text() -> NoText:
    return NoText(
        _(
            "The PDF has no text to read (a scanned document?): export it from the "
            "program it was made in, or run it through text recognition first."
        )
    )


@dataclass(frozen=True)
class Product:
    name: str
    price: str

    def as_json(self) -> dict[str, str]:
        return {"name": self.name, "price": self.price}


@dataclass(frozen=True)
class Reading:
    """What was read from a brochure."""

    text: str
    pages: int
    headings: list[str] = field(default_factory=list)
    products: list[Product] = field(default_factory=list)

    @property
    def title(self) -> str:
        """The first heading, else the first line (empty when the text is)."""
        if self.headings:
            return self.headings[0]
        return next((line for line in self.text.splitlines() if line.strip()), "")


def too_large() -> BrochureRefused:
    """The refusal of a file over MAX_UPLOAD_BYTES (the page says it before reading one)."""
    return BrochureRefused(
        _("The file is larger than %(mb)d MB; upload a smaller PDF (without large pictures).")
        % {"mb": MAX_UPLOAD_BYTES // (1024 * 1024)}
    )


def check_upload(name: str, data: bytes) -> int:
    """The number of pages of an upload a worker can read, or BrochureRefused saying why."""
    if not data:
        raise BrochureRefused(_("The file is empty."))
    if len(data) > MAX_UPLOAD_BYTES:
        raise too_large()
    if PurePath(name).suffix.lower() != ".pdf" or b"%PDF-" not in data[:1024]:
        raise BrochureRefused(_("This is not a PDF: upload the brochure or price list as a PDF."))
    reader = _open(data)
    pages = len(reader.pages)
    if not pages:
        raise BrochureRefused(_("The PDF has no pages."))
    if pages > MAX_PAGES:
        raise BrochureRefused(
            _(
                "The PDF has %(pages)d pages; at most %(max)d are read: upload the pages "
                "that matter."
            )
            % {"pages": pages, "max": MAX_PAGES}
        )
    if not any(_page_text(page).strip() for page in reader.pages):
        raise _no_text()
    return pages


def _open(data: bytes) -> Any:
    """pypdf's reader of a PDF that opens and is not protected by a password (one
    encrypted with an empty password, to restrict printing or copying, opens)."""
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(data))
        locked = reader.is_encrypted and not reader.decrypt("")
        if not locked:
            len(reader.pages)  # a broken page tree fails here rather than in the worker
    except Exception as broken:  # pypdf's errors are many (PdfReadError, KeyError, ...)
        raise BrochureRefused(_("The PDF does not open: it may be damaged.")) from broken
    if locked:
        raise BrochureRefused(
            _(
                "The PDF is protected by a password: save it without the password and "
                "upload it again."
            )
        )
    return reader


def _page_text(page: Any) -> str:
    try:
        return str(page.extract_text() or "")
    except Exception:  # a page pypdf cannot parse has no text for us
        return ""


def read(data: bytes) -> Reading:
    """The text, headings and priced products of a PDF (BrochureRefused when it has no
    text or does not open)."""
    reader = _open(data)
    lines: list[tuple[str, float]] = []
    for page in list(reader.pages)[:MAX_PAGES]:
        lines += _page_lines(page)
        if sum(len(text) for text, _size in lines) > MAX_TEXT_CHARS:
            break
    lines = [(text, size) for text, size in lines if text]
    if not lines:
        raise _no_text()
    text = "\n".join(line for line, _size in lines)[:MAX_TEXT_CHARS]
    return Reading(
        text=text,
        pages=len(reader.pages),
        headings=_headings(lines),
        products=_products([line for line, _size in lines]),
    )


def normalise(text: str) -> str:
    """One line as kept: NFC, comma-below ș/ț, no control characters, spaces squeezed."""
    text = unicodedata.normalize("NFC", text).translate(_CEDILLA)
    text = "".join(c if c.isprintable() else " " for c in text)
    return " ".join(text.split())


def _page_lines(page: Any) -> list[tuple[str, float]]:
    """The page's lines, each with the largest font size set in it."""
    lines: list[tuple[str, float]] = []
    current: list[str] = []
    size = 0.0

    def visit(text: str, cm: list[float], tm: list[float], font: Any, font_size: float) -> None:
        nonlocal current, size
        pieces = text.split("\n")
        for index, piece in enumerate(pieces):
            if index:
                lines.append((normalise("".join(current)), size))
                current, size = [], 0.0
            if piece.strip():
                current.append(piece)
                size = max(size, _effective(font_size, tm, cm))

    with contextlib.suppress(Exception):  # a page pypdf cannot parse gives what it read
        page.extract_text(visitor_text=visit)
    lines.append((normalise("".join(current)), size))
    return lines


def _effective(font_size: float, tm: list[float], cm: list[float]) -> float:
    """The size a line is seen at: its font size scaled by the text and page matrices."""
    scale_tm = abs(tm[3]) or abs(tm[0]) or 1.0
    scale_cm = abs(cm[3]) or abs(cm[0]) or 1.0
    return round(float(font_size or 0) * scale_tm * scale_cm, 1)


def _headings(lines: list[tuple[str, float]]) -> list[str]:
    """Lines set larger than the body text; without sizes, short lines in capitals."""
    weights: Counter[float] = Counter()
    for text, size in lines:
        weights[size] += len(text)
    body = weights.most_common(1)[0][0] if weights else 0.0
    found = []
    for text, size in lines:
        letters = [c for c in text if c.isalpha()]
        if len(letters) < 3 or len(text) > MAX_NAME_CHARS or PRICE_RE.search(text):
            continue
        larger = body > 0 and size >= body * HEADING_SCALE
        capitals = len(text) <= 60 and all(c.isupper() for c in letters)
        if larger or capitals:
            found.append(text.strip(_LEADERS))
    return list(dict.fromkeys(found))[:MAX_HEADINGS]


def _products(lines: list[str]) -> list[Product]:
    """Each priced line's product (the text before its price, else the line above)."""
    found: dict[str, Product] = {}
    previous = ""
    for line in lines:
        match = PRICE_RE.search(line)
        if match is None:
            previous = line
            continue
        name = line[: match.start()].strip(_LEADERS)
        if sum(c.isalpha() for c in name) < 3:
            name = previous.strip(_LEADERS) if not PRICE_RE.search(previous) else ""
        price = normalise(match[0])
        if name and sum(c.isalpha() for c in name) >= 3:
            name = name[:MAX_NAME_CHARS].strip()
            found.setdefault(name.casefold(), Product(name, price))
        previous = line
        if len(found) >= MAX_PRODUCTS:
            break
    return list(found.values())


def prices_in(text: str) -> set[str]:
    """The prices a text quotes, compared without spaces, dots or case ("2.450 lei/t" and
    "2450 lei / t" are one), for checking a model quotes only the brochure's prices."""
    return {
        re.sub(r"[\s.]", "", m["amount"] + m["currency"]).casefold()
        for m in PRICE_RE.finditer(text)
    }
