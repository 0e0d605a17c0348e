# Production image: gunicorn for the web, the same image runs `rundramatiq` and `scheduler`.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app

# pg_dump / pg_restore for `manage.py backup` / `restore`: from PostgreSQL's own apt
# repository, at the server's major version (docker-compose.yml's postgres image); Debian's
# client is older and pg_dump refuses a newer server.
ARG PG_MAJOR=16
RUN apt-get update \
    && apt-get install -y --no-install-recommends gettext ca-certificates curl \
    && install -d /usr/share/postgresql-common/pgdg \
    && curl -fsSo /usr/share/postgresql-common/pgdg/apt.postgresql.org.asc \
        https://www.postgresql.org/media/keys/ACCC4CF8.asc \
    && . /etc/os-release \
    && echo "deb [signed-by=/usr/share/postgresql-common/pgdg/apt.postgresql.org.asc]" \
        "https://apt.postgresql.org/pub/repos/apt ${VERSION_CODENAME}-pgdg main" \
        > /etc/apt/sources.list.d/pgdg.list \
    && apt-get update \
    && apt-get install -y --no-install-recommends postgresql-client-${PG_MAJOR} \
    && rm -rf /var/lib/apt/lists/*

COPY pyproject.toml README.md ./
COPY cerniq cerniq
COPY outreach outreach
COPY whatsapp whatsapp
COPY email_channels email_channels
COPY hitl hitl
COPY console console
COPY integrations integrations
RUN pip install .

COPY . .
# collectstatic needs settings; a throwaway key is fine at build time only.
RUN SECRET_KEY=build-only DATABASE_URL=sqlite:////tmp/build.sqlite3 \
    python manage.py collectstatic --noinput

# var/prometheus: the metrics of the processes (settings creates it at build time, as root);
# var/media and var/backups exist in the image so the compose volumes mounted there start
# owned by the app's user (backups never world-readable).
RUN useradd --create-home --uid 1000 cerniq \
    && mkdir -p /app/var/prometheus /app/var/media /app/var/backups \
    && chmod 0700 /app/var/backups && chown -R cerniq /app/var
USER cerniq
EXPOSE 8000
CMD ["gunicorn", "-c", "gunicorn.conf.py", "cerniq.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "30"]
