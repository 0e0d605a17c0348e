"""Prometheus metrics, served at `/metrics` (cerniq.metrics.views, protected).

prometheus-client runs in multiprocess mode: every process of a deployment (gunicorn
workers, Dramatiq worker processes, the scheduler) writes its counters to files in one
directory (`directory`), and a scrape adds them up. Events are counted where they happen,
by the lowest layer that knows them: HTTP and database (`web`), Dramatiq queues
(`workers`), webhook intake (`platform`); sends in `outreach.metrics`, triage in
`hitl.metrics`. Facts that live in the database (quota per phone, open review items, dead
letters, reply rates, open alerts) are read at scrape time by collectors each app registers
(`collectors.register`, from its AppConfig.ready), so the platform names no domain model.

This package's `__init__` imports nothing: gunicorn's master imports `directory` before
prometheus_client may be imported.
"""
