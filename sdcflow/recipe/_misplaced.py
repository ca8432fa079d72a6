"""Where a key that is unknown at its place belongs: ``k: 3`` written beside ``measure:``
instead of under ``params:``, ``seed`` in a step instead of at the top of the recipe,
``role`` at the top instead of under ``variables.NAME``. The unknown-key message then
says where to move it, rather than only listing the keys allowed where it is."""

from __future__ import annotations

from collections.abc import Mapping

_SEED = ("'seed' is set once, at the top level of the recipe (each step's random numbers "
         "come from that seed and the step's id): move it there")


def _top_keys(schema: Mapping) -> set[str]:
    return set(schema.get("properties", {}))


def _step_keys(schema: Mapping) -> set[str]:
    return set(schema.get("$defs", {}).get("step", {}).get("properties", {}))


def _variable_keys(schema: Mapping) -> set[str]:
    return set(schema.get("$defs", {}).get("variable", {}).get("properties", {}))


def _plugin_of(step: object):
    """The plugin a step names, or ``None``."""
    from ..plugins import registry

    if not isinstance(step, Mapping):
        return None
    name = step.get("method", step.get("measure"))
    return registry.get(name) if isinstance(name, str) else None


def _params_example(key: str, value: object) -> str:
    """``params: {k: 3}`` (the value as written, when it is a plain scalar)."""
    if isinstance(value, bool):
        shown = "true" if value else "false"
    elif isinstance(value, (int, float, str)):
        shown = str(value)
    else:
        shown = "..."
    return f"params: {{{key}: {shown}}}"


def misplaced_hint(data: object, path: tuple, key: str, schema: Mapping) -> str | None:
    """Where ``key``, found unknown in the mapping at ``path`` of the recipe ``data``,
    belongs (``schema``: the recipe schema), or ``None`` when it is simply unknown."""
    top, step_keys = _top_keys(schema), _step_keys(schema)
    if len(path) == 2 and path[0] == "steps" and isinstance(path[1], int):
        step = _step_at(data, path[1])
        plugin = _plugin_of(step)
        if plugin is not None and key in plugin.params.get("properties", {}):
            return (f"'{key}' is a parameter of {plugin.name}: put it under params "
                    f"({_params_example(key, step.get(key))})")
        if key == "seed":
            return _SEED
        if key in top:
            return f"'{key}' is a key of the recipe's top level, not of a step"
        if key in _variable_keys(schema):
            return f"'{key}' is declared for a variable, under variables.NAME, not in a step"
        return None
    if len(path) == 3 and path[0] == "steps" and path[2] == "params":
        if key == "seed":
            return _SEED
        if key in step_keys:
            return (f"'{key}' is a key of the step, not a parameter of its "
                    "method: move it out of params, beside 'id'")
        return None
    if path == ():
        if key in step_keys - {"description"}:
            return f"'{key}' is a key of a step: write it in an entry of 'steps'"
        if key in _variable_keys(schema) - {"description"}:
            return f"'{key}' is declared for each variable: write it under variables.NAME"
    return None


def _step_at(data: object, index: int) -> Mapping | None:
    steps = data.get("steps") if isinstance(data, Mapping) else None
    if isinstance(steps, list) and 0 <= index < len(steps) and isinstance(steps[index],
                                                                           Mapping):
        return steps[index]
    return None
