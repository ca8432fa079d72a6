"""Taxonomies of categorical variables, as the recipe declares them (a variable's
``taxonomy``): inline (``tree``: nested mapping, or ``parents``: child -> parent), from
a JSON file of either form or a SKOS vocabulary in RDF/XML (``file``, relative to the
recipe), shipped (``builtin``), or
WordNet's noun or verb hierarchy (``wordnet``, the optional extra ``sdcflow[wordnet]``);
a variable with a ``hierarchy`` of levels and no taxonomy uses its hierarchy."""

from __future__ import annotations

import functools
import json
import os
import re
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from xml.etree import ElementTree

from ..kernels.semantic.taxonomy import (
    Taxonomy,
    TaxonomyError,
    from_levels,
    from_parents,
    from_tree,
)
from .recipe_files import CheckedFile, RecipeFileError, RecipeFiles, as_files

TAXONOMIES_DIR = Path(__file__).parent / "taxonomies"
SYNSET_NAME = re.compile(r".+\.[nvasr]\.\d\d")  # WordNet's names: dog.n.01
SKOS_SUFFIXES = (".rdf", ".xml", ".skos", ".owl")
WORDNET_MISSING = ("a WordNet taxonomy needs the optional extra sdcflow[wordnet] "
                   "(pip install 'sdcflow[wordnet]', which brings nltk): nltk is not installed")
WORDNET_DIR = Path("/usr/share/wordnet")  # Debian's wordnet-base
WORDNET_DATA_MISSING = ("a WordNet taxonomy needs the WordNet 3.0 database: install "
                        "Debian's wordnet-base (apt install wordnet-base, read from "
                        "/usr/share/wordnet) or NLTK's corpus (python -m nltk.downloader "
                        "wordnet)")


def builtin_taxonomies() -> list[str]:
    """The names of the shipped taxonomies (``taxonomy: {builtin: NAME}``)."""
    return sorted(p.stem for p in TAXONOMIES_DIR.glob("*.json"))


def resolve_taxonomy(spec: Mapping, files: RecipeFiles | Path | None
                     ) -> tuple[dict | None, str | None]:
    """The declaration as variables carry it (``{"parents": {...}}``, or
    ``{"wordnet": pos}`` resolved on the data's words when a step runs), or a message
    saying why there is none (a file that cannot be read, a taxonomy that is not a
    tree, nltk missing). A ``file`` is read relative to the recipe, as ``files`` allows
    (:mod:`.recipe_files`); without ``files`` only shipped and inline taxonomies."""
    if "wordnet" in spec:
        try:
            import nltk  # noqa: F401
        except ImportError:
            return None, WORDNET_MISSING
        return {"wordnet": spec["wordnet"]}, None
    try:
        if "builtin" in spec:
            name = spec["builtin"]
            if name not in builtin_taxonomies():
                return None, (f"unknown shipped taxonomy '{name}'; shipped: "
                              f"{', '.join(builtin_taxonomies())}")
            # (a shipped file: allowed for any recipe, and without one)
            spec = read_taxonomy_file(as_files(TAXONOMIES_DIR if files is None else files)
                                      .check(str(TAXONOMIES_DIR / f"{name}.json"),
                                             ("builtin",), "shipped taxonomy", "taxonomy"))
        elif "file" in spec:
            name = str(spec["file"])
            if Path(name).suffix.lower() in (".ttl", ".n3", ".nt", ".jsonld"):
                return None, (f"the taxonomy file {name}: SKOS is read in RDF/XML (.rdf, "
                              ".xml, .skos); convert Turtle or other RDF syntaxes to it (or "
                              "to JSON)")
            if files is None:
                return None, f"the taxonomy file {name}: read only with a recipe's folder"
            spec = read_taxonomy_file(as_files(files).check(name, ("file",), "taxonomy file",
                                                            "taxonomy"))
    except RecipeFileError as exc:
        return None, exc.message
    try:
        taxonomy = parse_taxonomy(spec)
    except TaxonomyError as exc:
        return None, str(exc)
    return {"parents": parents_of(taxonomy)}, None


def read_taxonomy_file(file: CheckedFile) -> dict:
    """``{"tree": ...}`` or ``{"parents": ...}`` of a taxonomy file: SKOS in RDF/XML by
    its suffix (:func:`skos_parents`), else JSON (:func:`read_json`); RecipeFileError
    says why it is neither."""
    if Path(file.name).suffix.lower() in SKOS_SUFFIXES:
        return skos_parents(file)
    spec = read_json(file)
    if not (isinstance(spec, dict) and len(spec) == 1 and ("tree" in spec or "parents" in spec)):
        raise file.refuse("it must hold one JSON object with one key, 'tree' (nested "
                          "concepts) or 'parents' (child -> parent)")
    return spec


def parse_taxonomy(spec: Mapping) -> Taxonomy:
    """The :class:`Taxonomy` of ``{"tree": ...}`` or ``{"parents": ...}``."""
    if "tree" in spec:
        if not isinstance(spec["tree"], Mapping):
            raise TaxonomyError("'tree' must map each top concept to its narrower concepts")
        return from_tree(spec["tree"])
    parents = spec["parents"]
    if not isinstance(parents, Mapping) or not all(
            isinstance(p, str) or p is None for p in parents.values()):
        raise TaxonomyError("'parents' must map each concept to its parent's name (or null)")
    return from_parents({str(c): p for c, p in parents.items()})


def parents_of(taxonomy: Taxonomy) -> dict[str, str | None]:
    """``child -> parent`` of every concept (``None`` for the root)."""
    return {name: (taxonomy.names[p] if p >= 0 else None)
            for name, p in zip(taxonomy.names, taxonomy.parent.tolist(), strict=True)}


def variable_taxonomy(var, words: Iterable[str] = ()) -> Taxonomy | None:
    """The taxonomy of a variable: its declared ``taxonomy`` (WordNet's built on
    ``words``, the data's values), else its ``hierarchy`` of levels, else None."""
    spec = getattr(var, "taxonomy", None)
    if spec is not None:
        if "wordnet" in spec:
            return from_parents(wordnet_parents(words, spec["wordnet"]))
        return from_parents(spec["parents"])
    if var.hierarchy:
        return from_levels(var.hierarchy)
    return None


def wordnet_parents(words: Iterable[str], pos: str = "noun") -> dict[str, str | None]:
    """``child -> parent`` of the words and their WordNet hypernyms: each word's first
    sense and its longest hypernym path (the first by name among equally long ones), the
    word under its synset (WordNet 3.0: NLTK's corpus, or the database of Debian's
    wordnet-base in /usr/share/wordnet)."""
    try:
        from nltk.corpus import wordnet
    except ImportError as exc:
        raise TaxonomyError(WORDNET_MISSING) from exc
    reader = _debian_reader(WORDNET_DIR) if (WORDNET_DIR / "data.noun").exists() else wordnet
    try:
        return _wordnet_tree(reader, words, pos)
    except LookupError as exc:  # (nltk's message: the corpus is not downloaded)
        raise TaxonomyError(WORDNET_DATA_MISSING) from exc


# WordNet 3.0's lexicographer files (lexnames(5WN)): number, name, part of speech (1 noun,
# 2 verb, 3 adjective, 4 adverb). NLTK's reader needs them as the file ``lexnames``,
# which Debian's wordnet-base does not install.
_NOUN_FILES = ["Tops", "act", "animal", "artifact", "attribute", "body", "cognition",
               "communication", "event", "feeling", "food", "group", "location", "motive",
               "object", "person", "phenomenon", "plant", "possession", "process",
               "quantity", "relation", "shape", "state", "substance", "time"]
_VERB_FILES = ["body", "change", "cognition", "communication", "competition", "consumption",
               "contact", "creation", "emotion", "motion", "perception", "possession",
               "social", "stative", "weather"]
LEXNAMES = (["adj.all 3", "adj.pert 3", "adv.all 4"]
            + [f"noun.{n} 1" for n in _NOUN_FILES]
            + [f"verb.{n} 2" for n in _VERB_FILES]
            + ["adj.ppl 3"])


@functools.lru_cache(maxsize=1)
def _debian_reader(system: Path):
    """NLTK's WordNet reader on Debian's database, made once per process (it loads the
    whole lemma index: validation and every semantic step ask for it)."""
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class DebianWordNet(WordNetCorpusReader):
        def map_wn(self, version="wordnet"):
            # (the mapping to NLTK's own corpus serves multilingual data only, and would
            # need that corpus: Debian's database is WordNet 3.0 itself)
            return None

    with warnings.catch_warnings():  # (no multilingual data: not used here)
        warnings.simplefilter("ignore", UserWarning)
        return DebianWordNet(str(_debian_wordnet(system)), None)


def _debian_wordnet(system: Path) -> Path:
    """A folder NLTK's WordNet reader can open on Debian's database: copies of its files
    (NLTK refuses links that leave the folder) and the ``lexnames`` it lacks, in the
    user's cache (or a temporary folder), added to NLTK's data paths, below which alone
    it reads (nltk 3.9.3 and later)."""
    import shutil
    import tempfile

    import nltk.data

    try:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        folder = base / "sdcflow" / "wordnet"
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        folder = Path(tempfile.mkdtemp(prefix="sdcflow-wordnet-"))
    for f in system.iterdir():
        copy = folder / f.name
        if f.is_file() and (copy.is_symlink() or not copy.exists()
                            or copy.stat().st_size != f.stat().st_size):
            copy.unlink(missing_ok=True)
            shutil.copyfile(f, copy)
    lexnames = "".join(f"{i:02d}\t{n.split()[0]}\t{n.split()[1]}\n"
                       for i, n in enumerate(LEXNAMES))
    target = folder / "lexnames"
    if not target.exists() or target.read_text() != lexnames:
        target.write_text(lexnames)
    for root in (str(folder), str(system)):
        if root not in nltk.data.path:
            nltk.data.path.append(root)
    return folder


def _wordnet_tree(reader, words: Iterable[str], pos: str) -> dict[str, str | None]:
    tag = {"noun": "n", "verb": "v"}[pos]
    parents: dict[str, str | None] = {}
    for word in words:
        if SYNSET_NAME.fullmatch(str(word)):  # a concept a semantic step generalised to
            try:
                senses = [reader.synset(str(word))]
            except Exception:  # (nltk's WordNetError: no such synset)  # noqa: BLE001
                senses = []
        else:
            senses = reader.synsets(str(word).replace(" ", "_"), pos=tag)
        if not senses:
            raise TaxonomyError(f"'{word}' is not a {pos} of WordNet")
        # NLTK lists a synset's hypernyms from a set, in an order that changes with
        # Python's hash seed: the path is chosen by its content (the longest, i.e. the
        # most specific; then the first by its names), so that the tree is reproducible
        paths = [[s.name() for s in path] for path in senses[0].hypernym_paths()]
        names = min(paths, key=lambda p: (-len(p), p))
        for parent, child in zip([None, *names[:-1]], names, strict=True):
            if parents.get(child, parent) != parent:
                continue  # another path reached it first: keep a tree
            parents[child] = parent
        if names[-1] != str(word):
            parents[str(word)] = names[-1]
    return parents


def skos_parents(file: CheckedFile) -> dict:
    """``{"parents": {concept: broader concept}}`` of a SKOS vocabulary in RDF/XML (W3C,
    "SKOS Simple Knowledge Organization System Reference", 2009): each ``skos:Concept``
    (or resource typed so) named by its first ``skos:prefLabel`` (else the end of its
    URI), under the concept of its ``skos:broader`` (or of the ``skos:narrower`` naming
    it). Raises RecipeFileError for a file that is not XML (saying where, in expat's
    words, never quoting it), not SKOS, or with a label given twice. Entities of a DTD
    are expanded within expat's limits (no "billion laughs"); external ones never."""
    rdf = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}"
    skos = "{http://www.w3.org/2004/02/skos/core#}"
    root = _xml_root(file)
    about = rdf + "about"
    resource = rdf + "resource"
    labels: dict[str, str] = {}
    broader: dict[str, str] = {}
    for node in root.iter():
        uri = node.get(about)
        typed = node.tag == skos + "Concept" or any(
            t.get(resource) == skos[1:-1] + "Concept" for t in node.findall(rdf + "type"))
        if uri is None or not typed:
            continue
        label = node.find(skos + "prefLabel")
        name = (label.text or "").strip() if label is not None else ""
        labels[uri] = name or uri.rstrip("/#").rsplit("/", 1)[-1].rsplit("#", 1)[-1]
        for up in node.findall(skos + "broader"):
            broader.setdefault(uri, up.get(resource))
        for down in node.findall(skos + "narrower"):
            broader.setdefault(down.get(resource), uri)
    if not labels:
        raise file.refuse("no skos:Concept in it")
    names: dict[str, str] = {}
    for uri, name in labels.items():
        if name in names:
            raise file.refuse(f"the label '{name}' names two concepts ({names[name]} and "
                              f"{uri})")
        names[name] = uri
    parents: dict[str, str | None] = {}
    for uri, name in labels.items():
        up = broader.get(uri)
        if up is not None and up not in labels:
            raise file.refuse(f"'{name}' is narrower than {up}, which is no concept of the "
                              "file")
        parents[name] = labels[up] if up is not None else None
    return {"parents": parents}


def _xml_root(file: CheckedFile):
    """The root element of an XML file, or RecipeFileError in expat's own words (its
    error codes' fixed texts, with line and column: never the file's content)."""
    from xml.parsers import expat

    raw = file.content()
    try:
        return ElementTree.fromstring(raw)
    except ElementTree.ParseError as exc:
        line, column = exc.position
        what = expat.ErrorString(exc.code) if exc.code else "not well-formed"
        raise file.refuse(f"it is not XML ({what}, line {line}, column {column + 1})") \
            from None
    except (LookupError, UnicodeError, ValueError):  # an encoding expat cannot read
        raise file.refuse("it declares an encoding sdcflow cannot read (write it as "
                          "UTF-8)") from None


MAX_JSON_DEPTH = 100  # nesting of a JSON taxonomy (a tree a hundred levels deep)
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')


def read_json(file: CheckedFile):
    """The JSON value of a file, refused (RecipeFileError) when it is not UTF-8 JSON
    (saying where, in the json module's words, never quoting it) or is nested more than
    :data:`MAX_JSON_DEPTH` deep (Python's parser would recurse until it fails)."""
    raw = file.content()
    depth = json_depth(raw)
    if depth > MAX_JSON_DEPTH:
        raise file.refuse(f"it is nested {depth:,} levels deep, more than the limit of "
                          f"{MAX_JSON_DEPTH}")
    text = file.decode(raw)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise file.refuse(f"it is not JSON ({exc.msg}, line {exc.lineno}, column "
                          f"{exc.colno})") from None
    except (ValueError, RecursionError):  # (an integer of more digits than Python reads)
        raise file.refuse("it is not JSON sdcflow can read") from None


def json_depth(raw: bytes) -> int:
    """The deepest nesting of arrays and objects in JSON text (outside strings),
    counted without parsing, in linear time."""
    import numpy as np

    brackets = re.sub(rb"[^\[\]{}]", b"", _JSON_STRING.sub(b"", raw))
    if not brackets:
        return 0
    codes = np.frombuffer(brackets, dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return int(np.cumsum(steps).max())
