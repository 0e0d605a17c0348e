"""The operator pages: server-rendered views composed from every domain app.

At the top of the dependency graph (beside the integrations): a page may show leads,
phones and review items together, so the apps below never import their pages.
"""
