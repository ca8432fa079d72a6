"""Checks of the ``release`` section that the schema cannot express: file names that
can be written on any common file system and do not collide with each other or with
sdcflow's own public files, and publishable measures that exist."""

from __future__ import annotations

from pathlib import PurePosixPath

from ..errors import Problem, did_you_mean
from ._model import Recipe
from ._steps import disabled_use

# sdcflow's own files in public/ (compared case-insensitively: some file systems are)
RESERVED = ("manifest.json", "report.html", "report.pdf")
MAX_NAME_BYTES = 255  # one path component, on ext4, APFS, NTFS
MAX_PATH_BYTES = 1024


def release_problems(recipe: Recipe) -> list[Problem]:
    """Problems with the release's file names and ``release.measures``."""
    doc, release = recipe.doc, recipe.release
    out: list[Problem] = []
    files: list[tuple[tuple, str]] = []
    if isinstance(release.get("path"), str):
        files.append((("release", "path"), release["path"]))
    for tid, path in sorted((release.get("tables") or {}).items()):
        if isinstance(path, str):
            files.append((("release", "tables", tid), path))
    seen: dict[str, tuple] = {}
    for where, text in files:
        label = ".".join(map(str, where))
        message, parts = _file_problem(text)
        if message:
            out.append(doc.problem(where, f"{label}: {message}"))
            continue
        key = "/".join(parts).casefold()
        if key in RESERVED:
            out.append(doc.problem(where, f"{label}: '{text}' is the name of sdcflow's own "
                                   f"public/{key}; choose another file name"))
            continue
        clash = seen.get(key) or next((w for k, w in seen.items()
                                       if k.startswith(key + "/") or key.startswith(k + "/")),
                                      None)
        if clash:
            out.append(doc.problem(where, f"{label}: '{text}' is the same file as "
                                   f"{'.'.join(map(str, clash))} (or a folder of it)"))
            continue
        seen[key] = where
    out.extend(_format_problems(recipe))
    written = (doc.data or {}).get("variables") if isinstance(doc.data, dict) else None
    for name, spec in (written or {}).items() if isinstance(written, dict) else ():
        var = recipe.variables.get(name)
        if isinstance(spec, dict) and "digits" in spec and var is not None \
                and not var.is_numeric:
            out.append(doc.problem(("variables", name, "digits"), (
                f"variables.{name}.digits: '{name}' is {var.type}; digits round numbers"
                " (declare type: integer or continuous)")))
    measures = {s.id: s for s in recipe.steps}
    for i, sid in enumerate(release.get("measures") or []):
        where = ("release", "measures", i)
        step = measures.get(sid)
        if sid in recipe.disabled:
            out.append(disabled_use(recipe, where, "release.measures", sid))
        elif step is None:
            names = [s.id for s in recipe.steps if s.kind == "measure"]
            out.append(doc.problem(where, f"release.measures: no step '{sid}'"
                                   f"{did_you_mean(sid, names)}"))
        elif step.kind != "measure":
            out.append(doc.problem(where, f"release.measures: '{sid}' is a method; only the "
                                   "results of measure steps are published"))
    if release.get("pdf") is True:
        from ..report.pdf import pdf_problem

        problem = pdf_problem()
        if problem is not None:
            out.append(doc.problem(("release", "pdf"), f"release.pdf: {problem}"))
    return out


def _format_problems(recipe: Recipe) -> list[Problem]:
    """A released SAS data set (ReadStat writes only transport files), or a statistics
    file without the extra that writes it."""
    from ..data.io import table_format
    from ..data.stat_files import MISSING_EXTRA, STAT_FORMATS, WRITABLE, load_pyreadstat

    release, doc = recipe.release, recipe.doc
    if not isinstance(release.get("path"), str):
        return []
    fmt = table_format(release, PurePosixPath(release["path"]))
    where = ("release", "format") if "format" in release else ("release", "path")
    if fmt in STAT_FORMATS and fmt not in WRITABLE:
        return [doc.problem(where, "release: SAS data sets (.sas7bdat) cannot be written;"
                            " release a SAS transport file (.xpt, format: xpt)")]
    if fmt in STAT_FORMATS and load_pyreadstat() is None:
        return [doc.problem(where, "release: " + MISSING_EXTRA.format(what=fmt))]
    return []


def _file_problem(text: str) -> tuple[str | None, list[str]]:
    """Why ``text`` cannot be a released file's path (None if it can), and its parts."""
    if any(ord(c) < 32 or c in '<>:"|?*\\' for c in text):
        return ("a file name may not hold control characters or any of < > : \" | ? * \\",
                [])
    parts = [p for p in PurePosixPath(text).parts if p != "."]
    if not parts or text.endswith("/"):
        return f"'{text}' is not a file name", []
    if len(text.encode("utf-8")) > MAX_PATH_BYTES:
        return f"the path is {len(text.encode())} bytes long; at most {MAX_PATH_BYTES}", []
    for part in parts:
        if part == "..":
            return "a path inside the output directory may not use '..'", []
        if len(part.encode("utf-8")) > MAX_NAME_BYTES:
            return (f"the name '{part[:20]}...' is {len(part.encode())} bytes long; file "
                    f"systems allow at most {MAX_NAME_BYTES}"), []
        if part.startswith("."):
            return f"'{part}' is a hidden name; released files have visible names", []
        if part.rstrip(" ") != part:
            return f"'{part}' ends with a space", []
    return None, parts
