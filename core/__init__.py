"""The platform core: game storage and service, bot registry, outbound policy, telemetry, config.

Layers import one way (checked by import-linter, see pyproject.toml): `games` <- `core` <-
`harness` <- `api`. The core knows no HTTP framework and no job queue.
"""
