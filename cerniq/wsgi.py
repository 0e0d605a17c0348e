"""WSGI entry point (gunicorn cerniq.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cerniq.settings")
application = get_wsgi_application()
