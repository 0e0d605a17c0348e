from tests.factories import make_one_of_everything


def test_one_of_everything_builds_a_valid_row_per_model(tenant):
    rows = make_one_of_everything(tenant)
    for name, row in rows.items():
        assert row.pk is not None, name
        if hasattr(row, "tenant_id"):
            assert row.tenant_id == tenant.pk, name
