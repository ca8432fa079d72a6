"""Two runs compared (``sdcflow diff RUN_A RUN_B``): what their manifests and measures
say, side by side.

A run is an output directory of ``sdcflow run`` (its internal ``manifest.json`` and
``measures.json``) or its ``public/`` part (``public/manifest.json`` only, or that file
named directly). Two run directories are compared in full; when either side is public
only, both are compared by their public manifests (what may be published: nothing
internal of the other side is printed).

Compared, in this order: the recipe (its file's sha256, its public form's sha256), the
input data's hashes, the seed (said to be the same or not, never printed: it regenerates
the random draws), the released variant, whether the run released; the steps by id
(plugin and its version, each parameter that differs with both values, the output's
sha256); the measures (every value that differs, both values, by its path in the
measure's result); the checks (passed or not); the files (sha256 equal or not, present in
one run only). The sdcflow version and the environment (Python, NumPy, pandas) are shown
when they differ but do not make two runs different: the same recipe on the same input
gives the same bytes whatever they are (docs/recipe-guide.md, "Reproducibility").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

MANIFEST = "manifest.json"
MEASURES = "measures.json"
PUBLIC = "public"


class RunDiffError(ValueError):
    """A path that is not a run that can be compared (the message says why)."""


@dataclass
class Run:
    """What a run's directory says: its manifest, its measures and checks, and whether
    only its public part is at hand."""

    path: Path
    manifest: dict
    measures: dict
    checks: list
    public: bool


def _json_file(path: Path, what: str) -> dict:
    from ..data.recipe_files import RecipeFileError, command_line_file

    try:
        raw = command_line_file(path, what, "file").content()
        value = json.loads(raw.decode("utf-8"))
    except RecipeFileError as exc:
        raise RunDiffError(exc.message) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise RunDiffError(f"{path}: not a readable {what} ({type(exc).__name__}: {exc})") \
            from None
    if not isinstance(value, dict):
        raise RunDiffError(f"{path}: not a {what} (not a JSON object)")
    return value


def _manifest_path(path: Path) -> tuple[Path, bool]:
    """The manifest of ``path`` and whether it is a public one."""
    if path.is_file():
        return path, path.parent.name == PUBLIC
    if (path / MANIFEST).is_file():
        return path / MANIFEST, path.name == PUBLIC
    raise RunDiffError(f"{path}: not a run's output directory (no {MANIFEST}; give the "
                       "directory 'sdcflow run' wrote, or its public/)")


def load_run(path: str | Path, *, public: bool = False) -> Run:
    """The run in ``path`` (its public part alone when ``public``)."""
    path = Path(path)
    manifest_path, is_public = _manifest_path(path)
    if public and not is_public:
        candidate = manifest_path.parent / PUBLIC / MANIFEST
        if not candidate.is_file():
            raise RunDiffError(f"{path}: has no public/{MANIFEST} (the run released nothing), "
                               "and the other run is a public part only")
        manifest_path, is_public = candidate, True
    manifest = _json_file(manifest_path, "manifest")
    if not isinstance(manifest.get("recipe"), dict) or "layout" not in manifest:
        raise RunDiffError(f"{manifest_path}: not an sdcflow manifest")
    doc = manifest
    if not is_public:
        measures_path = manifest_path.parent / MEASURES
        doc = _json_file(measures_path, "measures file") if measures_path.is_file() else {}
    return Run(manifest_path.parent, manifest, _of(doc.get("measures"), dict),
               _of(doc.get("checks"), list), is_public)


def _of(value, kind: type):
    """``value`` when it has the shape a manifest gives it, else an empty one (a file
    edited by hand is compared as far as it can be, never a crash)."""
    return value if isinstance(value, kind) else kind()


def _leaves(value, prefix: str = "") -> dict[str, object]:
    """The scalar values of a JSON value by path (``a.b[2].c``); an empty list or mapping
    is a value of its own."""
    if isinstance(value, dict) and value:
        out = {}
        for key in sorted(value, key=str):
            out.update(_leaves(value[key], f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(value, list) and value:
        out = {}
        for n, item in enumerate(value):
            out.update(_leaves(item, f"{prefix}[{n}]"))
        return out
    return {prefix: value}


def _changes(a, b) -> list[dict]:
    """The paths whose values differ: ``{"path", "a", "b"}`` (a side without the path
    has no key)."""
    la, lb = _leaves(a), _leaves(b)
    out = []
    for path in sorted(set(la) | set(lb), key=_natural):
        if path in la and path in lb and la[path] == lb[path] \
                and type(la[path]) is type(lb[path]):
            continue
        entry: dict = {"path": path}
        if path in la:
            entry["a"] = la[path]
        if path in lb:
            entry["b"] = lb[path]
        out.append(entry)
    return out


def _natural(path: str):
    """Paths in reading order: ``x[2]`` before ``x[10]``."""
    import re

    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", path)]


@dataclass
class RunDiff:
    """The differences of two runs (``as_dict`` for ``--format json``)."""

    a: str
    b: str
    public: bool
    run: list[dict] = field(default_factory=list)
    steps: dict = field(default_factory=dict)
    measures: dict = field(default_factory=dict)
    checks: list[dict] = field(default_factory=list)
    files: dict = field(default_factory=dict)
    environment: list[dict] = field(default_factory=list)

    @property
    def same(self) -> bool:
        """Whether nothing but the sdcflow version or the environment differs."""
        return not (self.run or any(self.steps.values()) or any(self.measures.values())
                    or self.checks or self.files["differ"] or self.files["only_a"]
                    or self.files["only_b"])

    def as_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "public_only": self.public, "same": self.same,
                "run": self.run, "steps": self.steps, "measures": self.measures,
                "checks": self.checks, "files": self.files,
                "environment": self.environment}


def _run_facts(run: Run) -> dict:
    m = run.manifest
    recipe = m.get("recipe") or {}
    facts = {"recipe public sha256": recipe.get("public_sha256"),
             "variant": m.get("variant")}
    if not run.public:
        facts.update({"recipe sha256": recipe.get("sha256"), "input": m.get("input"),
                      "released": m.get("released")})
    return facts


def _steps(run: Run) -> dict[str, dict]:
    return {str(s.get("id")): s for s in _of(run.manifest.get("steps"), list)
            if isinstance(s, dict)}


def _step_changes(a: Run, b: Run) -> dict:
    sa, sb = _steps(a), _steps(b)
    changed = []
    for sid in [s for s in sa if s in sb]:
        x, y = sa[sid], sb[sid]
        entry: dict = {"id": sid}
        for key in ("method", "measure", "plugin_version"):
            if x.get(key) != y.get(key):
                entry[key] = {"a": x.get(key), "b": y.get(key)}
        params = _changes(x.get("params"), y.get("params"))
        if params:
            entry["params"] = params
        if not a.public and x.get("output_sha256") != y.get("output_sha256"):
            entry["output"] = "differs"
        if len(entry) > 1:
            changed.append(entry)
    return {"changed": changed, "only_a": [s for s in sa if s not in sb],
            "only_b": [s for s in sb if s not in sa]}


def _files(run: Run) -> dict[str, str]:
    key = "released" if run.public else "files"
    files = run.manifest.get(key) or {}
    return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {}


def _checks(a: Run, b: Run) -> list[dict]:
    ca = {c.get("check"): c.get("passed") for c in a.checks if isinstance(c, dict)}
    cb = {c.get("check"): c.get("passed") for c in b.checks if isinstance(c, dict)}
    out = []
    for text in sorted(set(ca) | set(cb), key=str):
        if ca.get(text, "absent") != cb.get(text, "absent"):
            out.append({"check": text, "a": ca.get(text), "b": cb.get(text)}
                       | ({"only": "a"} if text not in cb else {})
                       | ({"only": "b"} if text not in ca else {}))
    return out


def diff_runs(path_a: str | Path, path_b: str | Path) -> RunDiff:
    """Compare the runs in ``path_a`` and ``path_b`` (:class:`RunDiffError` when either
    is not a run)."""
    a, b = load_run(path_a), load_run(path_b)
    if a.public != b.public:  # compare what both sides publish
        a, b = load_run(path_a, public=True), load_run(path_b, public=True)
    out = RunDiff(str(path_a), str(path_b), a.public)
    fa, fb = _run_facts(a), _run_facts(b)
    for key in fa:
        if fa[key] != fb[key]:
            out.run.append({"what": key, "a": fa[key], "b": fb[key]})
    if not a.public and a.manifest.get("seed") != b.manifest.get("seed"):
        out.run.append({"what": "seed", "a": "(not shown)", "b": "(not shown)"})
    out.steps = _step_changes(a, b)
    ma, mb = a.measures, b.measures
    out.measures = {
        "changed": {sid: changes for sid in sorted(set(ma) & set(mb))
                    if (changes := _changes(ma[sid], mb[sid]))},
        "only_a": sorted(set(ma) - set(mb)), "only_b": sorted(set(mb) - set(ma))}
    out.checks = _checks(a, b)
    xa, xb = _files(a), _files(b)
    out.files = {"same": sorted(f for f in xa if xb.get(f) == xa[f]),
                 "differ": sorted(f for f in xa if f in xb and xb[f] != xa[f]),
                 "only_a": sorted(set(xa) - set(xb)), "only_b": sorted(set(xb) - set(xa))}
    for key in ("sdcflow",):
        if a.manifest.get(key) != b.manifest.get(key):
            out.environment.append({"what": key, "a": a.manifest.get(key),
                                    "b": b.manifest.get(key)})
    ea = _of(a.manifest.get("environment"), dict)
    eb = _of(b.manifest.get("environment"), dict)
    for key in sorted(set(ea) | set(eb)):
        if ea.get(key) != eb.get(key):
            out.environment.append({"what": key, "a": ea.get(key), "b": eb.get(key)})
    return out


def _value(value) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _change_line(change: dict) -> str:
    a = _value(change["a"]) if "a" in change else "(absent)"
    b = _value(change["b"]) if "b" in change else "(absent)"
    return f"{change['path']}: {a} -> {b}"


def diff_text(d: RunDiff, limit: int = 20) -> str:
    """The differences for people: one section per part that differs (at most
    ``limit`` values per measure; ``--format json`` has them all)."""
    lines = [f"a: {d.a}", f"b: {d.b}"]
    if d.public:
        lines.append("(compared by their public manifests)")
    for r in d.run:
        lines.append(f"{r['what']}: {_value(r['a'])} -> {_value(r['b'])}")
    steps = d.steps
    for s in steps["changed"]:
        lines.append(f"step {s['id']}:")
        for key in ("method", "measure", "plugin_version"):
            if key in s:
                lines.append(f"  {key}: {_value(s[key]['a'])} -> {_value(s[key]['b'])}")
        lines += [f"  params.{_change_line(c)}" for c in s.get("params", [])]
        if "output" in s:
            lines.append("  output: sha256 differs")
    lines += [f"step only in a: {s}" for s in steps["only_a"]]
    lines += [f"step only in b: {s}" for s in steps["only_b"]]
    for sid, changes in d.measures["changed"].items():
        lines.append(f"measure {sid}: {len(changes)} value{'s' if len(changes) != 1 else ''} "
                     "differ")
        lines += [f"  {_change_line(c)}" for c in changes[:limit]]
        if len(changes) > limit:
            lines.append(f"  ... and {len(changes) - limit} more (--format json lists all)")
    lines += [f"measure only in a: {s}" for s in d.measures["only_a"]]
    lines += [f"measure only in b: {s}" for s in d.measures["only_b"]]
    for c in d.checks:
        def verdict(v):
            return "absent" if v is None else ("passed" if v else "failed")
        lines.append(f"check {c['check']}: {verdict(c['a'])} -> {verdict(c['b'])}")
    f = d.files
    lines += [f"file {name}: sha256 differs" for name in f["differ"]]
    lines += [f"file only in a: {name}" for name in f["only_a"]]
    lines += [f"file only in b: {name}" for name in f["only_b"]]
    if f["same"]:
        lines.append(f"{len(f['same'])} file{'s' if len(f['same']) != 1 else ''} with the "
                     "same sha256")
    for e in d.environment:
        lines.append(f"(not a difference of the runs) {e['what']}: {_value(e['a'])} -> "
                     f"{_value(e['b'])}")
    lines.append("the runs are the same" if d.same else "the runs differ")
    return "\n".join(lines)
