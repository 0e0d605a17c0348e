"""Provider integrations: one package per provider, at the edge of the dependency graph.

Each package declares itself in its `__init__.py` (`integration = Integration(...)`) and
is registered by one line in settings.INTEGRATIONS; see docs/adding-a-provider.md.
"""
