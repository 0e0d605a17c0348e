"""WSGI entry point (gunicorn cerniq.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cerniq.settings")
application = get_wsgi_application()

# gunicorn runs no system checks: refuse here to serve with a silent sandbox provider.
from cerniq.checks import refuse_silent_sandbox  # noqa: E402 (needs the app registry)

refuse_silent_sandbox()
