# The Trick Arena image: one image for every service of docker-compose.yml (api, worker, bots,
# dashboard); the command picks the role.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# Dependencies first so that a code change does not reinstall them.
COPY pyproject.toml README.md constraints.txt ./
COPY games ./games
COPY core ./core
COPY api ./api
COPY harness ./harness
COPY bots ./bots
RUN pip install -c constraints.txt '.[dashboard]' \
    && useradd --system --uid 10001 --home-dir /app arena \
    && mkdir -p /data /tmp/metrics \
    && chown arena /data /tmp/metrics

USER arena
EXPOSE 8000
# The API by default; the worker, bots and dashboard override the command in docker-compose.yml.
CMD ["gunicorn", "-c", "python:api.gunicorn_conf", "--bind", "0.0.0.0:8000", "--worker-class", "gevent", "--workers", "2", "api.app:create_app()"]
