"""What a run records of each step instance: the manifest's entry (plugin, version,
parameters, fingerprint, output hash) and the run log's (seconds, from the cache)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class StepRecord:
    """What the manifest says of one step instance (``seconds`` and ``cached`` vary
    between runs and go to the run log, not the manifest)."""

    node: str
    kind: str
    plugin: str
    version: str
    params: dict
    variant: dict
    fingerprint: str
    output_sha256: str
    seconds: float
    cached: bool
    info: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        out = {
            "id": self.node,
            self.kind: self.plugin,
            "plugin_version": self.version,
            "params": self.params,
            "fingerprint": self.fingerprint,
            "output_sha256": self.output_sha256,
        }
        if self.variant:
            out["variant"] = self.variant
        if self.info:
            out["info"] = self.info
        return out
