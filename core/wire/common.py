"""What the per-game wire mirrors share: described fields and the reference to a game's move union.

Every field of a mirror carries a description (`metadata["description"]`); an optional or nullable
field's description says when it is present or null. Each mirror names the TypedDict of
`games/<game>/wire.py` it mirrors (`MIRRORS`), whose docstring describes it in `openapi.yaml` and
whose keys a test compares with the mirror's fields.
"""

from __future__ import annotations

import inspect
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

# How an event's hidden part is described (games.base.redact_event removes it for other readers).
PRIVATE = (
    "Present only for the seats it names (the event's `private.seats`), and for everybody once the game "
    "is over."
)


def meta(description: str, **extra: Any) -> dict[str, Any]:
    """Field metadata: the description (and any further JSON Schema keywords)."""
    return {"description": description, **extra}


def kind(*names: str) -> fields.String:
    """The `type` of a move or event: one of these names (mostly just one)."""
    text = " or ".join(f"`{name}`" for name in names)
    return fields.String(required=True, validate=validate.OneOf(names), metadata=meta(f"Always {text}."))


def count(description: str, **kwargs: Any) -> fields.Integer:
    """A non-negative whole number."""
    return fields.Integer(strict=True, validate=validate.Range(min=0), metadata=meta(description), **kwargs)


class Wire:
    """The field makers of one game: its card ids (`pattern`, `examples`) and its seats (0..`max_seat`)."""

    def __init__(self, pattern: str, examples: list[str], max_seat: int) -> None:
        self.pattern = pattern
        self.examples = examples
        self.max_seat = max_seat

    def card(self, description: str, **kwargs: Any) -> fields.String:
        """A card id."""
        return fields.String(
            validate=validate.Regexp(self.pattern),
            metadata=meta(description, pattern=self.pattern, examples=self.examples),
            **kwargs,
        )

    def cards(self, description: str, **kwargs: Any) -> fields.List[str]:
        """A list of card ids."""
        return fields.List(self.card("A card id."), metadata=meta(description), **kwargs)

    def seat(self, description: str, **kwargs: Any) -> fields.Integer:
        """A seat number (0 is the first seat)."""
        return fields.Integer(
            strict=True,
            validate=validate.Range(min=0, max=self.max_seat),
            metadata=meta(description),
            **kwargs,
        )

    def seats(self, description: str, **kwargs: Any) -> fields.List[int]:
        """A list of seat numbers."""
        return fields.List(self.seat("A seat."), metadata=meta(description), **kwargs)


class Ref(fields.Raw):
    """A value documented by a component of openapi.yaml (`component`), e.g. a game's move union.

    At run time it loads the value as it is: a listed move is checked by `core.wire.validate_move`.
    """

    def __init__(self, component: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.component = component


class ObjectRef(Ref):
    """A JSON object documented by a component (`component`): it loads only an object, as it is (the
    component's own checks run where the value is used, e.g. a game's options in its engine)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, dict):
            raise ValidationError("Not a valid mapping type.")
        return value


class Mirror(Schema):
    """A marshmallow mirror of one TypedDict of a game's wire.py."""

    MIRRORS: object = None
    """The TypedDict of `games/<game>/wire.py` this schema mirrors (None: a shape wire.py leaves untyped)."""


def description_of(schema: type[Schema]) -> str:
    """The text describing a mirror in openapi.yaml: the mirrored TypedDict's docstring, else its own."""
    source = getattr(schema, "MIRRORS", None)
    text = (getattr(source, "__doc__", None) if source is not None else None) or schema.__doc__ or ""
    return prose(text)


def prose(docstring: str) -> str:
    """A docstring as text: its paragraphs with their lines joined (paragraphs stay apart)."""
    paragraphs = inspect.cleandoc(docstring).split("\n\n")
    return "\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paragraphs).strip()
