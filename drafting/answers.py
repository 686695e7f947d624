"""A model's JSON answer, declared once with pydantic: the schema it is sent and the check of what comes back.

Each stage that answers in JSON declares its answer as a pydantic model; the bounds the run's
options set (the longest string, the most findings) are added to it with ``create_model``. The
schema sent to the server (``json_schema``) and the check of the answer (``checked``) come from
that one model, so the two cannot drift apart.

The schema sent keeps to what llama-server's grammar converter and Ollama's ``format`` both take:
objects, required keys, string enums, ``maxLength`` and ``maxItems``; nested models are written
inline rather than as ``$ref``, and pydantic's titles and descriptions (the models' docstrings) are
left out: no server reads them.
"""

from __future__ import annotations

from types import GenericAlias
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, Field, ValidationError

M = TypeVar("M", bound=BaseModel)


def bounded_text(chars: int) -> Any:
    """A string of at most ``chars`` characters (a type, for a model's field)."""
    return Annotated[str, Field(max_length=chars)]


def list_of(item: Any, most: int) -> tuple[Any, Any]:
    """A list of at most ``most`` ``item``s, as ``create_model`` takes a field: (type, field)."""
    return GenericAlias(list, (item,)), Field(max_length=most)


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema of ``model`` as a server is sent it: nested models inline, no titles or descriptions."""
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})

    def plain(node: Any) -> Any:
        if isinstance(node, list):
            return [plain(n) for n in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return plain(defs[node["$ref"].removeprefix("#/$defs/")])
        return {
            key: {name: plain(sub) for name, sub in value.items()} if key == "properties" else plain(value)
            for key, value in node.items()
            if key not in ("title", "description")
        }

    out: dict[str, Any] = plain(raw)
    return out


def checked(model: type[M], answer: Any) -> M:
    """``answer`` (the parsed JSON) held to ``model``.

    Raises:
        OffSchema: the answer is JSON, but not of the model's shape; it names the first fields that are wrong.
    """
    try:
        return model.model_validate(answer)
    except ValidationError as exc:
        raise OffSchema(
            "; ".join(
                f"{'.'.join(str(p) for p in error['loc']) or 'the answer'}: {error['msg']}"
                for error in exc.errors()[:3]
            )
        ) from exc


class OffSchema(ValueError):
    """A JSON answer of another shape than its schema's (a server that ignored the schema sent it)."""
