"""A bare Django + django_dramatiq project: bench/worker_rss.py's baseline worker."""
