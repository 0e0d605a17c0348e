"""The date-sensitive test modules (docs/testing-clock.md), without Django imports, so
that CI can list them (`python -m tests.clock`) and collect only these at its fixed
moments; tests/conftest.py marks every test in them `clock`."""

from __future__ import annotations

# The date-sensitive modules: their code reads the clock to decide (sending windows, working
# days and holidays, quota days, SLAs, pacing, retention, "today" on pages and in figures).
# Every test in them is marked `clock`; a test elsewhere may carry @pytest.mark.clock itself.
CLOCK_MODULES = frozenset(
    {
        "tests/api/test_analytics.py",
        "tests/api/test_key_failures.py",
        "tests/api/test_phones.py",
        "tests/api/test_response_times.py",
        "tests/api/test_reviews.py",
        "tests/api/test_sending_window.py",
        "tests/api/test_sequences.py",
        "tests/cerniq/test_notifications.py",
        "tests/cerniq/test_signin_lockout.py",
        "tests/cerniq/test_webhook_alerts.py",
        "tests/hitl/test_hot_replies.py",
        "tests/hitl/test_pages_review.py",
        "tests/hitl/test_priority.py",
        "tests/hitl/test_reply_responses.py",
        "tests/hitl/test_response_times.py",
        "tests/hitl/test_review.py",
        "tests/hitl/test_review_queue.py",
        "tests/hitl/test_sla_settings.py",
        "tests/hitl/test_takeover.py",
        "tests/hitl/test_triage_jobs.py",
        "tests/integrations/instantly/test_analytics.py",
        "tests/integrations/instantly/test_campaigns.py",
        "tests/integrations/instantly/test_shield.py",
        "tests/integrations/resend/test_inbound_e2e.py",
        "tests/integrations/resend/test_send_after_crash.py",
        "tests/integrations/timelinesai/test_status_sync.py",
        "tests/outreach/test_analytics.py",
        "tests/outreach/test_commands.py",
        "tests/outreach/test_dashboard_kept_figures.py",
        "tests/outreach/test_dead_letters.py",
        "tests/outreach/test_dispatch.py",
        "tests/outreach/test_email_events.py",
        "tests/outreach/test_email_sending.py",
        "tests/outreach/test_figures_agree.py",
        "tests/outreach/test_hours.py",
        "tests/outreach/test_inbox_composer.py",
        "tests/outreach/test_next_send.py",
        "tests/outreach/test_pacing.py",
        "tests/outreach/test_pages_alerts.py",
        "tests/outreach/test_pages_campaigns.py",
        "tests/outreach/test_pages_dashboard.py",
        "tests/outreach/test_pages_dead_letters.py",
        "tests/outreach/test_pages_password_reset.py",
        "tests/outreach/test_pages_phones.py",
        "tests/outreach/test_pages_sending_window.py",
        "tests/outreach/test_phone_health.py",
        "tests/outreach/test_pushing.py",
        "tests/outreach/test_quick_replies.py",
        "tests/outreach/test_readiness.py",
        "tests/outreach/test_record_opt_out.py",
        "tests/outreach/test_recovery.py",
        "tests/outreach/test_rollup_during_sends.py",
        "tests/outreach/test_seed_demo_rerun.py",
        "tests/outreach/test_send_path.py",
        "tests/outreach/test_sequences.py",
        "tests/outreach/test_stages.py",
        "tests/outreach/test_suppression.py",
        "tests/outreach/test_window_replanning.py",
        "tests/test_demo_pipeline.py",
        "tests/test_e2e_whatsapp.py",
        "tests/test_enrollment_refusals.py",
        "tests/test_event_reasons_language.py",
        "tests/whatsapp/test_allocation.py",
        "tests/whatsapp/test_capacity.py",
        "tests/whatsapp/test_phones.py",
        "tests/whatsapp/test_quota.py",
        "tests/whatsapp/test_runs_under_faults.py",
        "tests/whatsapp/test_sending.py",
        "tests/whatsapp/test_unchecked_numbers.py",
        "tests/whatsapp/test_warmup.py",
    }
)


if __name__ == "__main__":
    print(" ".join(sorted(CLOCK_MODULES)))
