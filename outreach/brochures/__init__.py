"""Templates drafted from a brochure or price list (docs/brochure-drafts.md).

An operator uploads a PDF on the templates pages; a worker reads its text
(`reading`), drafts a first WhatsApp message, two follow-ups and a cold email in Romanian
with spintax and variables (`ai`: the configured AI model, else the rules of `offline`;
`drafts` holds the rules every draft must pass) and saves each as a template whose version
is a draft (`jobs`). A draft is never sent: a person edits and approves it
(outreach.template_versions.approve), then it is an ordinary A/B version.
"""
