"""What the API's blueprints share: documenting error responses and header parameters in the OpenAPI spec."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from flask_smorest import Blueprint

from api.schemas import ErrorSchema

F = TypeVar("F", bound=Callable[..., Any])


class ErrorDocs:
    """A `documents_errors(*codes)` decorator for one blueprint, describing each code with its text."""

    def __init__(self, blp: Blueprint, texts: Mapping[int, str]) -> None:
        self.blp = blp
        self.texts = texts

    def __call__(self, *codes: int) -> Callable[[F], F]:
        """Document the error responses an operation can return (all share the Error schema)."""

        def decorate(func: F) -> F:
            documented: Any = func
            for code in codes:
                documented = self.blp.alt_response(code, schema=ErrorSchema, description=self.texts[code])(
                    documented
                )
            # flask-smorest's alt_response wraps the view in one more call layer per code only to
            # carry the docs; every request would pay for those layers, so keep the docs (the
            # `_apidoc` the route reads) on the view itself and drop the layers.
            cast(Any, func)._apidoc = documented._apidoc
            return func

        return decorate


def header_parameter(name: str, description: str) -> dict[str, Any]:
    """An optional string request header, as an OpenAPI parameter."""
    return {
        "in": "header",
        "name": name,
        "required": False,
        "schema": {"type": "string"},
        "description": description,
    }
