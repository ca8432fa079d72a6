"""MkDocs hook: the pages of the documentation that are generated when the site is built,
so that they can never disagree with the code.

- ``reference.md``, the recipe reference, from ``sdcflow/schemas/recipe.schema.json``;
- on each method and measure family page (``methods/<family>.md``,
  ``measures/<family>.md``), after the hand-written entry of each plugin, its parameters
  as ``sdcflow methods NAME`` prints them (``sdcflow.cli.describe``); a plugin without an entry
  gets a section of its own, and a family without a page a generated page, so that a
  plugin added later appears without touching the docs;
- ``<!-- plugins: methods -->`` / ``<!-- plugins: measures -->``: a table of every plugin
  of that kind with its family page;
- ``<!-- readme: TITLE -->``: the README's section TITLE (its body, headings one level
  up), with its links pointing into the site; ``<!-- readme: TITLE | heading -->`` keeps
  the heading at its level. The README is a landing page: the site shares only its
  "Quick start" (on the home page), so that the commands CI runs are written once.

A plugin's family is the package it lives in: ``sdcflow/methods/perturbative/noise.py``
is on ``methods/perturbative.md``. Modules directly under ``sdcflow/measures/`` (the SDC
score and the ranking) form the family ``scores``; plugins of other packages (entry
points) the family named by their top-level package.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the sdcflow of this checkout, not another installed copy
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sdcflow.cli.describe import _distribution_text, parameters, type_text
from sdcflow.plugins import registry

KINDS = {"method": "methods", "measure": "measures"}
TOP_LEVEL_FAMILY = "scores"
FAMILY_TITLES = {
    ("methods", "non_perturbative"): "Non-perturbative methods",
    ("methods", "perturbative"): "Perturbative methods",
    ("methods", "synthetic"): "Synthetic data",
    ("methods", "tabular"): "Table methods",
    ("methods", "graphs"): "Graph methods",
    ("measures", "risk"): "Disclosure risk",
    ("measures", "linkage"): "Record linkage attacks",
    ("measures", "utility"): "Information loss and utility",
    ("measures", "graphs"): "Graph measures",
    ("measures", "scores"): "Scores and rankings",
    ("measures", "dp"): "Differentially private statistics",
}
README_MARK = re.compile(r"^<!-- readme: (?P<title>.+?)(?: \| (?P<keep>heading))? -->$", re.MULTILINE)
PLUGINS_MARK = re.compile(r"^<!-- plugins: (?P<kind>methods|measures) -->$", re.MULTILINE)
SCHEMA = ROOT / "sdcflow" / "schemas" / "recipe.schema.json"
GUIDE = "recipe-guide.md"  # holds the table "Sections and fields" of the recipe's keys


# --- families --------------------------------------------------------------------------

def family_of(plugin: registry.Plugin) -> tuple[str, str]:
    """(``methods`` or ``measures``, family) of a plugin: the package it lives in."""
    kind = KINDS.get(plugin.kind, "methods")
    parts = type(plugin).__module__.split(".")
    if parts[:2] in (["sdcflow", "methods"], ["sdcflow", "measures"]):
        return kind, parts[2] if len(parts) > 3 else TOP_LEVEL_FAMILY
    return kind, parts[0]


def family_page(kind: str, family: str) -> str:
    return f"{kind}/{family}.md"


def families() -> dict[tuple[str, str], list[registry.Plugin]]:
    """Every family with its plugins (sorted by name)."""
    out: dict[tuple[str, str], list[registry.Plugin]] = {}
    for plugin in registry.plugins():
        out.setdefault(family_of(plugin), []).append(plugin)
    return dict(sorted(out.items()))


def family_title(kind: str, family: str) -> str:
    return FAMILY_TITLES.get((kind, family), family.replace("_", " ").capitalize())


# --- plugin parameter tables -----------------------------------------------------------

def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _json(value) -> str:
    return "`" + json.dumps(value, ensure_ascii=False).replace("|", "\\|") + "`"


def plugin_details(plugin: registry.Plugin) -> str:
    """What ``sdcflow methods NAME`` says of a plugin, in Markdown."""
    title = (f"*{_cell(plugin.summary)}* (`{plugin.name}`, {plugin.kind}, "
             f"version {plugin.version})")
    lines = [title, ""]
    params = parameters(plugin)
    if params:
        # published: in public/manifest.json and the external report (Plugin.public_params)
        lines += ["| parameter | type | default | published | description |",
                  "|---|---|---|---|---|"]
        for p in params:
            default = "required" if p["required"] else (
                _json(p["default"]) if "default" in p else "optional")
            published = "yes" if p["published"] else "no (internal)"
            lines.append(f"| `{p['name']}` | {_cell(p['type'])} | {default} | {published} | "
                         f"{_cell(p['description'])} |")
    else:
        lines.append("No parameters.")
    lines.append("")
    if "x-error" in plugin.params:
        lines += [f"Note: {plugin.params['x-error']}", ""]
    if plugin.roles:
        lines.append(f"Accepts roles: {', '.join(plugin.roles)}. ")
    if plugin.types:
        lines.append(f"Accepts types: {', '.join(plugin.types)}. ")
    lines.append(f"On the Dask engine: {_distribution_text(plugin)}.")
    return "\n".join(lines) + "\n"


def _plugin_heading(name: str) -> re.Pattern:
    """The ``## `name` ...`` heading of a plugin's hand-written entry (also a shared one,
    ``## `d_risk` and `d_risk_rmd```)."""
    return re.compile(rf"^## .*`{re.escape(name)}`.*$", re.MULTILINE)


def add_plugin_details(markdown: str, plugins: list[registry.Plugin]) -> str:
    """Each plugin's details at the end of its entry (before the next ``## `` heading);
    plugins without an entry get a section at the end of the page."""
    for plugin in plugins:
        block = ("\n**Parameters** (generated from the plugin's declaration, as `sdcflow "
                 f"methods {plugin.name}` prints them):\n\n" + plugin_details(plugin))
        match = _plugin_heading(plugin.name).search(markdown)
        if match is None:
            markdown = (markdown.rstrip("\n") + f"\n\n## `{plugin.name}` ({plugin.kind})\n"
                        + block)
            continue
        following = re.compile(r"^## ", re.MULTILINE).search(markdown, match.end())
        cut = following.start() if following else len(markdown)
        markdown = markdown[:cut].rstrip("\n") + "\n" + block + "\n" + markdown[cut:]
    return markdown


def plugins_table(kind: str) -> str:
    """Every plugin of a kind (``methods``/``measures``): name, summary, family page."""
    lines = ["| plugin | family | what it does |", "|---|---|---|"]
    for plugin in registry.plugins():
        page_kind, family = family_of(plugin)
        if page_kind != kind:
            continue
        link = f"[{family_title(page_kind, family)}]({family}.md)"
        lines.append(f"| `{plugin.name}` | {link} | {_cell(plugin.summary)} |")
    return "\n".join(lines) + "\n"


# --- README sections -------------------------------------------------------------------

def _slug(title: str) -> str:
    """The anchor Python-Markdown's toc (and GitHub) give a heading."""
    text = re.sub(r"[`*]", "", title).strip().lower()
    text = re.sub(r"[^\w\s-]", "", text)
    return re.sub(r"[\s]+", "-", text)


def readme_sections(readme: str) -> dict[str, tuple[int, str]]:
    """Each heading of the README (title -> (level, body up to the next heading of the
    same or a higher level))."""
    heads = [(m.start(), m.end(), len(m.group(1)), m.group(2).strip())
             for m in re.finditer(r"^(#{1,6}) (.+)$", readme, re.MULTILINE)]
    out = {}
    for i, (_start, end, level, title) in enumerate(heads):
        stop = len(readme)
        for later in heads[i + 1:]:
            if later[2] <= level:
                stop = later[0]
                break
        out[title] = (level, readme[end:stop].strip("\n"))
    return out


def anchor_map(docs_dir: Path, readme: str) -> dict[str, str]:
    """README anchor -> the page (and anchor) of the site where that text is."""
    sections = readme_sections(readme)
    where: dict[str, str] = {}
    for page in sorted(docs_dir.rglob("*.md")):
        uri = page.relative_to(docs_dir).as_posix()
        for mark in README_MARK.finditer(page.read_text(encoding="utf-8")):
            title = mark.group("title")
            if title not in sections:
                continue
            _level, body = sections[title]
            where[_slug(title)] = f"{uri}#{_slug(title)}" if mark.group("keep") else uri
            for sub in re.finditer(r"^(#{1,6}) (.+)$", body, re.MULTILINE):
                where.setdefault(_slug(sub.group(2)), f"{uri}#{_slug(sub.group(2))}")
    where.setdefault("methods-and-measures", "methods/index.md")
    return where


def _relative(target: str, from_uri: str) -> str:
    depth = from_uri.count("/")
    return "../" * depth + target


def readme_section(title: str, keep_heading: bool, page_uri: str, readme: str,
                   anchors: Mapping[str, str]) -> str:
    sections = readme_sections(readme)
    if title not in sections:
        raise KeyError(f"{page_uri}: the README has no section {title!r}")
    level, body = sections[title]
    if keep_heading:
        body = f"{'#' * level} {title}\n\n{body}"
    else:
        shift = level - 1
        body = re.sub(r"^(#{2,6}) ", lambda m: "#" * (len(m.group(1)) - shift) + " ", body,
                      flags=re.MULTILINE)

    def link(match: re.Match) -> str:
        text, target = match.group(1), match.group(2)
        if target.startswith("#"):
            goal = anchors.get(target[1:])
            if goal is None:
                return text
            page, _, anchor = goal.partition("#")
            if page == page_uri:
                return f"[{text}](#{anchor or target[1:]})"
            return f"[{text}]({_relative(goal, page_uri)})"
        if re.match(r"[a-z]+://", target):
            return match.group(0)
        if target.startswith("docs/"):  # a page of the site, as the README links it
            return f"[{text}]({_relative(target.removeprefix('docs/'), page_uri)})"
        return text  # a file of the repository, not of the site
    body = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", link, body)
    # GitHub needs `a\|b` for a pipe in a code span of a table; Python-Markdown reads
    # the code span first and would show the backslash
    return re.sub(r"`[^`\n]*`", lambda m: m.group(0).replace("\\|", "|"), body)


# --- the recipe reference --------------------------------------------------------------

def _resolve(spec: Mapping, schema: Mapping) -> Mapping:
    ref = spec.get("$ref")
    if ref and ref.startswith("#/$defs/"):
        merged = dict(schema["$defs"][ref.split("/")[-1]])
        merged.update({k: v for k, v in spec.items() if k != "$ref"})
        return merged
    return spec


def _schema_type(spec: Mapping, schema: Mapping) -> str:
    spec = _resolve(spec, schema)
    if "const" in spec:
        return f"exactly {json.dumps(spec['const'])}"
    if spec.get("type") == "array" and "$ref" in spec.get("items", {}):
        return "list of " + _schema_type(spec["items"], schema)
    if spec.get("type") == "object" and "properties" in spec:
        return "mapping (below)"
    if spec.get("type") == "object" and isinstance(spec.get("additionalProperties"), Mapping) \
            and "$ref" in spec["additionalProperties"]:
        return "mapping of name to " + _schema_type(spec["additionalProperties"], schema)
    if spec.get("type") == "object" and "properties" not in spec and not isinstance(
            spec.get("additionalProperties"), Mapping):
        return "mapping"
    if "oneOf" in spec and spec.get("type") is None and all(
            "type" in alt for alt in spec["oneOf"]):
        return " or ".join(type_text(alt) for alt in spec["oneOf"])
    if "oneOf" in spec and spec.get("type") == "object":
        return "mapping (below)"
    big = {k: v for k, v in spec.items() if k in ("minimum", "maximum")
           and isinstance(v, int) and abs(v) >= 10**6}
    if big:  # type_text's %g would print 2^64 - 1 as 1.84467e+19
        rest = type_text({k: v for k, v in spec.items() if k not in big})
        signs = {"minimum": ">=", "maximum": "<="}
        return " ".join([rest, *(f"{signs[k]} {v}" for k, v in big.items())])
    return type_text(spec)


def _object_of(spec: Mapping, schema: Mapping) -> tuple[str, Mapping] | None:
    """(path suffix, object schema) when ``spec`` holds named properties of its own: an
    object, a list of objects, or a mapping of names to objects."""
    spec = _resolve(spec, schema)
    if "properties" in spec:
        return "", spec
    if spec.get("type") == "array" and isinstance(spec.get("items"), Mapping):
        items = _resolve(spec["items"], schema)
        if "properties" in items:
            return "[]", items
    extra = spec.get("additionalProperties")
    if isinstance(extra, Mapping):
        inner = _resolve(extra, schema)
        if "properties" in inner:
            return ".NAME", inner
    return None


def guide_meanings(guide: str) -> dict[str, str]:
    """The meanings of the recipe guide's table ("Sections and fields", in
    ``docs/recipe-guide.md``), by key path (``variables.NAME.role``, ``steps[].measure``):
    the description of a key whose schema has none."""
    level_body = readme_sections(guide).get("Sections and fields")
    out: dict[str, str] = {}
    if level_body is None:
        return out
    for row in re.finditer(r"^\| (.+?) \| (.+) \|$", level_body[1], re.MULTILINE):
        names = re.findall(r"`([^`]+)`", row.group(1))
        if not names:
            continue
        parent = names[0].rpartition(".")[0]
        meaning = re.sub(r"\]\([^)]*\)", "]", row.group(2)).replace("[", "").replace("]", "")
        for name in names:
            full = name if "." in name or not parent else f"{parent}.{name}"
            out.setdefault(full, meaning)
    return out


def _rows(path: str, obj: Mapping, schema: Mapping, out: list, nested: list,
          meanings: Mapping[str, str]) -> None:
    required = set(obj.get("required", []))
    for key, raw in obj.get("properties", {}).items():
        spec = _resolve(raw, schema)
        default = _json(spec["default"]) if "default" in spec else ""
        need = "yes" if key in required else ""
        description = spec.get("description", "") or meanings.get(f"{path}{key}", "")
        if not description and "x-error" in spec:
            description = f"Expected: {spec['x-error']}."
        out.append(f"| `{path}{key}` | {_cell(_schema_type(spec, schema))} | {need} | "
                   f"{default} | {_cell(description)} |")
        inner = _object_of(raw, schema)
        if inner is not None and inner[1] is not obj:
            nested.append((f"{path}{key}{inner[0]}", inner[1]))


def _alternatives(obj: Mapping) -> str:
    """The forms a ``oneOf`` of required keys allows (a step: method or measure)."""
    forms = []
    for alt in obj.get("oneOf", []):
        keys = alt.get("required", [])
        if keys:
            forms.append(" with ".join(f"`{k}`" for k in keys))
    if not forms:
        return ""
    note = f" ({obj['x-error']})" if "x-error" in obj else ""
    return f"Exactly one of: {'; '.join(forms)}{note}.\n\n"


def recipe_reference(schema: Mapping, guide: str = "") -> str:
    """The recipe reference, section by section, from the JSON Schema (a key the schema
    does not describe takes its meaning from the recipe guide's table of fields,
    ``guide`` being the guide's Markdown)."""
    meanings = guide_meanings(guide)
    intro = (
        "Generated from the recipe's JSON Schema (`sdcflow/schemas/recipe.schema.json`, "
        f"`$id` `{schema.get('$id', '')}`) each time the site is built; `sdcflow schema` "
        "prints the schema itself. A key not listed here is an error anywhere in a "
        "recipe. The [recipe guide](recipe-guide.md) explains the fields with examples; "
        "each step's `params` are those of its plugin (see [Methods](methods/index.md) "
        "and [Measures](measures/index.md), or `sdcflow methods NAME`).")
    lines = [
        "# Recipe reference", "", intro, "",
        "## Top level", "",
        f"{schema.get('description', '')}", "",
        "| key | type | required | default | description |", "|---|---|---|---|---|",
    ]
    required = set(schema.get("required", []))
    sections = []
    for key, raw in schema["properties"].items():
        spec = _resolve(raw, schema)
        default = _json(spec["default"]) if "default" in spec else ""
        description = spec.get("description", "") or meanings.get(key, "")
        lines.append(f"| [`{key}`](#{key}) | {_cell(_schema_type(spec, schema))} | "
                     f"{'yes' if key in required else ''} | {default} | "
                     f"{_cell(description)} |")
        sections.append((key, raw))
    lines.append("")
    for key, raw in sections:
        spec = _resolve(raw, schema)
        lines += [f"## {key}", ""]
        if spec.get("description") or meanings.get(key):
            lines += [spec.get("description") or meanings[key], ""]
        lines += [f"Type: {_schema_type(spec, schema)}."
                  + (" Required." if key in required else ""), ""]
        inner = _object_of(raw, schema)
        if inner is None:
            allowed = spec.get("enum")
            if allowed:
                lines += ["Allowed values: " + ", ".join(_json(v) for v in allowed), ""]
            _check_forms(spec, schema, lines)
            continue
        pending = [(key + inner[0], inner[1])]
        while pending:
            path, obj = pending.pop(0)
            if path != key:  # the section's own keys need no heading of their own
                lines += [f"### `{path}`", ""]
            lines.append(_alternatives(obj))
            rows: list[str] = []
            nested: list = []
            _rows(path + ".", obj, schema, rows, nested, meanings)
            lines += ["| key | type | required | default | description |",
                      "|---|---|---|---|---|", *rows, ""]
            pending = nested + pending
    return "\n".join(lines) + "\n"


def _check_forms(spec: Mapping, schema: Mapping, lines: list) -> None:
    """A section given as alternatives (``checks``: text or {expr, message})."""
    items = _resolve(spec.get("items") or {}, schema)
    if "oneOf" in items:
        for alt in items["oneOf"]:
            if "properties" in alt:
                keys = ", ".join(f"`{k}`" for k in alt["properties"])
                needed = "`, `".join(alt.get("required", []))
                lines += [(f"Each item is an expression (text) or a mapping with {keys} "
                          f"(`{needed}` required)."), ""]


# --- MkDocs events ---------------------------------------------------------------------

def on_config(config):
    """Add to the navigation any family page the nav of mkdocs.yml does not list yet."""
    listed = set()

    def walk(items):
        for item in items or []:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            if isinstance(value, list):
                walk(value)
            else:
                listed.add(value)
    walk(config["nav"])
    for kind, family in families():
        uri = family_page(kind, family)
        if uri in listed:
            continue
        for item in config["nav"]:
            if isinstance(item, dict) and kind.capitalize() in item:
                item[kind.capitalize()].append({family_title(kind, family): uri})
    return config


def on_files(files, config):
    """The generated pages: the recipe reference, and a page for each family that has no
    hand-written one."""
    from mkdocs.structure.files import File

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    guide = (Path(config["docs_dir"]) / GUIDE).read_text(encoding="utf-8")
    files.append(File.generated(config, "reference.md",
                                content=recipe_reference(schema, guide)))
    for kind, family in families():
        uri = family_page(kind, family)
        if files.get_file_from_path(uri) is None:
            content = (f"# {family_title(kind, family)}\n\n"
                       f"The {kind} of the package `{family}`.\n")
            files.append(File.generated(config, uri, content=content))
    return files


def on_page_markdown(markdown, page, config, files):
    uri = page.file.src_uri
    by_page = {family_page(*key): plugins for key, plugins in families().items()}
    if uri in by_page:
        markdown = add_plugin_details(markdown, by_page[uri])
    markdown = PLUGINS_MARK.sub(lambda m: plugins_table(m.group("kind")), markdown)
    if README_MARK.search(markdown):
        readme = (ROOT / "README.md").read_text(encoding="utf-8")
        anchors = anchor_map(Path(config["docs_dir"]), readme)
        markdown = README_MARK.sub(
            lambda m: readme_section(m.group("title"), bool(m.group("keep")), uri, readme,
                                     anchors), markdown)
    return markdown
