import logging

from cerniq.logging import MaskPIIFilter, mask_pii


def test_phone_numbers_and_emails_are_masked():
    text = mask_pii("sent to +40712345678 and ion.popescu@agro-iasi.ro")
    assert "+40712345678" not in text
    assert "ion.popescu" not in text
    assert "@agro-iasi.ro" in text


def test_filter_masks_formatted_arguments():
    record = logging.LogRecord(
        "x", logging.INFO, __file__, 1, "reply from %s", ("+40722000111",), None
    )
    MaskPIIFilter().filter(record)
    assert "+40722000111" not in record.getMessage()
    assert record.getMessage().startswith("reply from +40")
