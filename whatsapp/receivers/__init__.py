"""Webhook receivers for the WhatsApp providers (registered in cerniq.webhooks.RECEIVERS)."""
