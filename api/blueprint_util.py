"""What the API's blueprints share: typed flask-smorest, error responses and header parameters.

flask-smorest ships no type hints, so under mypy its `Api` and `Blueprint` would be `Any` and every
decorated view untyped. Type checkers read the declarations below instead (their signatures copied
from flask-smorest 0.47, the parts this API uses); at run time the names are flask-smorest's own
classes, so nothing changes. Import `Api` and `Blueprint` from here, never from flask_smorest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar, cast

from marshmallow import fields, validate

from api.schemas import ErrorSchema
from core.wire import GAME_WIRE
from games.registry import get_game

F = TypeVar("F", bound=Callable[..., Any])
P = ParamSpec("P")
R = TypeVar("R")

if TYPE_CHECKING:
    import flask
    from apispec import APISpec
    from flask.typing import ResponseReturnValue
    from marshmallow import Schema
    from werkzeug.exceptions import HTTPException
    from werkzeug.routing import BaseConverter

    StatusCode = int | str | HTTPStatus
    SchemaArg = type[Schema] | Schema

    class Blueprint(flask.Blueprint):
        """flask_smorest.Blueprint: a Flask blueprint whose views document themselves."""

        description: str

        def __init__(self, name: str, import_name: str, *, description: str = "", **kwargs: Any) -> None: ...

        def route(
            self,
            rule: str,
            *,
            parameters: list[dict[str, Any] | str] | None = None,
            tags: list[str] | None = None,
            **options: Any,
        ) -> Callable[[F], F]: ...

        @staticmethod
        def doc(**kwargs: Any) -> Callable[[F], F]: ...

        def arguments(
            self,
            schema: SchemaArg,
            *,
            location: str = "json",
            content_type: str | None = None,
            required: bool = True,
            description: str | None = None,
            example: Any = None,
            examples: dict[str, Any] | None = None,
        ) -> Callable[[Callable[Concatenate[dict[str, Any], P], R]], Callable[P, R]]:
            """The view gets the loaded arguments first; the wrapper takes only the view's other ones."""
            ...

        def response(
            self,
            status_code: StatusCode,
            schema: SchemaArg | str | dict[str, Any] | None = None,
            *,
            content_type: str | None = None,
            description: str | None = None,
            example: Any = None,
            examples: dict[str, Any] | None = None,
            headers: dict[str, Any] | None = None,
        ) -> Callable[[F], F]: ...

        def alt_response(
            self,
            status_code: StatusCode,
            response: str | dict[str, Any] | None = None,
            *,
            schema: SchemaArg | str | dict[str, Any] | None = None,
            content_type: str | None = None,
            description: str | None = None,
            example: Any = None,
            examples: dict[str, Any] | None = None,
            headers: dict[str, Any] | None = None,
            success: bool = False,
        ) -> Callable[[F], F]: ...

    class Api:
        """flask_smorest.Api: registers blueprints in the app and their docs in `spec`."""

        ERROR_SCHEMA: type[Schema]
        spec: APISpec

        def __init__(
            self,
            app: flask.Flask | None = None,
            *,
            spec_kwargs: dict[str, Any] | None = None,
            config_prefix: str = "",
        ) -> None: ...

        def init_app(self, app: flask.Flask, *, spec_kwargs: dict[str, Any] | None = None) -> None: ...

        def register_blueprint(
            self, blp: Blueprint, *, parameters: list[dict[str, Any]] | None = None, **options: Any
        ) -> None: ...

        def register_converter(
            self, converter: type[BaseConverter], func: Callable[[BaseConverter], dict[str, Any]]
        ) -> None: ...

        def handle_http_exception(self, error: HTTPException) -> ResponseReturnValue: ...

else:
    from flask_smorest import Api, Blueprint

__all__ = ["Api", "Blueprint", "ErrorDocs", "header_parameter"]


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


def game_name_field(description: str, **kwargs: Any) -> Any:
    """A request's game name: a string the spec enumerates (`GameName`'s values); a name that is not
    a game is refused by the operation itself (422 `unknown_game`)."""
    return fields.String(
        validate=validate.Length(min=1, max=64),
        metadata={"description": description, "enum": sorted(GAME_WIRE)},
        **kwargs,
    )


def at_least_one_of(names: Sequence[str]) -> dict[str, Any]:
    """The JSON Schema keyword of a request body (a marshmallow schema's `JSON_SCHEMA`) that says at
    least one of `names` is given and not null, as the schema's validator demands."""
    return {"anyOf": [not_null([name]) for name in names]}


def seats_per_game() -> dict[str, Any]:
    """The JSON Schema keyword of a body with `game` and `seats` (createTournament, createLeague):
    the seat counts each game is played with, as the operation checks them (422 `invalid_seats`)."""
    return {
        "allOf": [
            {
                "if": {
                    "properties": {"game": {"const": game, "description": f"{game}."}},
                    "required": ["game"],
                },
                "then": {
                    "properties": {
                        "seats": {
                            "enum": list(get_game(game).seat_counts),
                            "description": f"{game}: {list(get_game(game).seat_counts)} seats.",
                        }
                    }
                },
            }
            for game in sorted(GAME_WIRE)
        ]
    }


def not_null(names: Sequence[str]) -> dict[str, Any]:
    """The JSON Schema of an object in which each of `names` is given and not null."""
    return {
        "required": list(names),
        "properties": {
            name: {"not": {"type": "null"}, "description": f"`{name}`, not null."} for name in names
        },
    }


class StrictBoolean(fields.Boolean):
    """A JSON body's boolean: `true` or `false` only (marshmallow's Boolean also takes 0, 1, "yes"...,
    which the spec's `type: boolean` does not)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value
