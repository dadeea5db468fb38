"""Write the OpenAPI document generated from the code: ``python -m api.openapi_gen openapi.yaml``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]  # no stubs installed (types-PyYAML is not a dependency)

from api.app import create_app
from api.blueprint_util import Api
from api.context import app_context
from core.repository import GameRepository


class _NoRedis:
    """Stands in for a Redis client: generating the spec never talks to Redis."""

    def register_script(self, script: str) -> None:
        """Scripts are registered lazily by redis-py; nothing to do offline."""
        return None


def spec_dict() -> dict[str, Any]:
    """The OpenAPI document as a dict, built by the real app factory (no Redis needed)."""

    repository = GameRepository(_NoRedis(), prefix="spec:")  # type: ignore[arg-type]
    app = create_app({"TRICKARENA_REPOSITORY": repository})
    with app.app_context():
        api: Api = app_context(app).api
        return api.spec.to_dict()


def spec_yaml() -> str:
    """The OpenAPI document as YAML text, keys in a stable order."""
    text: str = yaml.safe_dump(spec_dict(), sort_keys=True, allow_unicode=True, width=100)
    return text


def main(argv: list[str] | None = None) -> int:
    """Write the document to the path given (default: openapi.yaml)."""
    args = sys.argv[1:] if argv is None else argv
    target = Path(args[0] if args else "openapi.yaml")
    target.write_text(spec_yaml())
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
