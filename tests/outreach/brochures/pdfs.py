"""PDFs made by the tests: a brochure with a text layer (Helvetica, Romanian letters by a
Differences encoding, headings set larger), a scan (an image, no text), a PDF without
pages, and the same brochure protected by a password."""

from __future__ import annotations

import io

# Glyphs WinAnsi lacks, at codes it leaves unused (and ¤'s): pypdf reads ș/ț back as ş/ţ,
# as it does from many real PDFs.
_EXTRA = {"ă": 0x81, "Ă": 0x8D, "ș": 0x8F, "Ș": 0x90, "ț": 0x9D, "Ț": 0xA4}
_FONT = (
    b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding "
    b"/BaseEncoding /WinAnsiEncoding /Differences [129 /abreve 141 /Abreve 143 "
    b"/scommaaccent 144 /Scommaaccent 157 /tcommaaccent 164 /Tcommaaccent] >> >>"
)

BROCHURE = [
    (22, "Catalog îngrășăminte toamna 2026"),
    (11, "Livrăm în toată Moldova, direct la fermă."),
    (16, "Îngrășăminte azotoase"),
    (11, "Azotat de amoniu 34,4% N: 2.450 lei/t"),
    (11, "Uree granulată 46% - 2.890 lei/tonă"),
    (16, "Semințe de porumb"),
    (11, "Hibrid P9903 FAO 380 ............ 890 lei/sac"),
    (11, "Comenzi la office@agrofert.ro sau www.agrofert.ro"),
]


def _encode(text: str) -> bytes:
    return b"".join(bytes([_EXTRA[c]]) if c in _EXTRA else c.encode("cp1252") for c in text)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _document(pages: list[bytes], extra: list[bytes] | None = None) -> bytes:
    """A PDF of these page content streams (font F1 and image Im1 in every page's resources)."""
    extra = extra or []
    count = len(pages)
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(b"%d 0 R" % (5 + 2 * i) for i in range(count))
        + b"] /Count %d >>" % count,
        _FONT,
        b"<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Length 1 >>\nstream\n\x80\nendstream",
    ]
    for i, stream in enumerate(pages):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font "
            b"<< /F1 3 0 R >> /XObject << /Im1 4 0 R >> >> /Contents %d 0 R >>" % (6 + 2 * i)
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects += extra
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(
        b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    )
    return out.getvalue()


def text_page(lines: list[tuple[int, str]]) -> bytes:
    ops, y = ["BT"], 800
    for size, text in lines:
        ops.append(f"/F1 {size} Tf 1 0 0 1 50 {y} Tm ({_escape(text)}) Tj")
        y -= size + 10
    ops.append("ET")
    return _encode("\n".join(ops))


def brochure_pdf(lines: list[tuple[int, str]] | None = None, *, pages: int = 1) -> bytes:
    """A brochure with a text layer: the lines (font size, text) on its first page."""
    first = text_page(lines or BROCHURE)
    rest = [text_page([(11, f"Pagina {n}: condiții de livrare.")]) for n in range(2, pages + 1)]
    return _document([first, *rest])


def scanned_pdf() -> bytes:
    """A page that is only a picture: no text layer."""
    return _document([b"q 595 0 0 842 0 0 cm /Im1 Do Q"])


def pageless_pdf() -> bytes:
    return _document([])


def encrypted_pdf(opened_with: str = "parola-2026") -> bytes:
    """The brochure protected by a password (an empty one only restricts printing)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(brochure_pdf())))
    writer.encrypt(opened_with, "owner-2026", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
