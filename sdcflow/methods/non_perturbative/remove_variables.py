"""``remove_variables``: drop variables from the data, e.g. direct identifiers or
variables not to be published (Templ 2019: identifiers are removed before anything else).
Identifier variables are in any case never released."""

from __future__ import annotations

from typing import ClassVar

from ...plugins.distribution import Rows
from ...plugins.plain_words import names
from ...plugins.registry import Method, MethodResult, register, variables_param


@register
class RemoveVariables(Method):
    distribution = Rows()
    name = "remove_variables"
    public_params = ("variables",)
    protects = False  # drops variables; those released stay as they were: not protection
    summary = "Drop variables from the data (they reach no later step nor the release)."

    def explain(self, params, result):
        variables = params.get("variables") or []
        if not variables:
            return self.summary
        return (f"The variables {names(variables)} were removed from the data: they reach "
                "no later step nor the release.")
    params: ClassVar[dict] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["variables"],
        "properties": {
            "variables": variables_param("The variables to drop.", unique=False),
        },
    }

    def reads(self, params, meta):
        return set()

    def writes(self, params, meta):
        return set()

    def removes(self, params, meta):
        return set(params["variables"])

    def outputs(self, params, meta):
        return {}  # writes nothing; removes() says what goes

    def apply(self, data, params, rng):
        keep = [c for c in data.frame.columns if c not in params["variables"]]
        out = type(data)(data.frame[keep], {c: data.variables[c] for c in keep}, data.constraints)
        return MethodResult(out, {"removed": list(params["variables"])})
