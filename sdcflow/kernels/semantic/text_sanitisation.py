"""Sanitisation of free text: sensitive terms replaced by a generalisation in a taxonomy,
and numbers, dates and identifiers by a coarser form, rather than blacked out.

* Terms (D. Sanchez, M. Batet, A. Viejo, "Automatic general-purpose sanitization of
  textual documents", IEEE Transactions on Information Forensics and Security 8(6),
  2013): a concept of the taxonomy found in a text is sensitive when it is listed, lies
  below a listed concept (a hyponym discloses what it specialises), or, with a threshold,
  when its information content exceeds it; it is replaced by its lowest ancestor that is
  not sensitive and, with ``t``, subsumes at least ``t`` leaf concepts, so that at least
  ``t`` specific terms could have produced it (B. Anandan, C. Clifton, W. Jiang, M.
  Murugesan, P. Pastrana-Camacho, L. Si, "t-Plausibility: Generalizing words to
  desensitize text", Transactions on Data Privacy 5(3), 2012).
* Information content (IC): intrinsic, from the taxonomy alone, ``1 - log(hypo(c) + 1) /
  log(N)`` with ``hypo(c)`` the concepts below ``c`` and ``N`` all concepts (N. Seco, T.
  Veale, J. Hayes, "An intrinsic information content metric for semantic similarity in
  WordNet", ECAI 2004); or from frequencies, ``-log p(c)`` (P. Resnik, IJCAI 1995).
* Numbers become an interval (an order of magnitude, or a recipe's width), dates their
  month or year, identifiers (e-mail and web addresses, IBANs, IP addresses, phone and
  national identity numbers, and the recipe's own patterns) the name of their kind.

Every replacement is written in square brackets, so that a reader sees what was
generalised and :func:`residual` can tell a generalisation from an original value.
The kernel works on Python strings and NumPy arrays only.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np

from .distances import information_content
from .taxonomy import ROOT, Taxonomy

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
_MONTH = r"(?P<mon>" + "|".join(f"{m[:3]}(?:{m[3:]})?" if len(m) > 3 else m
                                 for m in MONTHS) + r")\.?"
_YEAR = r"(?P<y>(?:1[89]|20)\d\d)"

# Identifier patterns built in: name -> (regular expression, replacement). Case matters
# (an IBAN's country code is in capitals).
IDENTIFIERS: dict[str, tuple[str, str]] = {
    # (bounded as RFC 5321 bounds a local part and a domain's labels: a long run of
    # letters costs linear time, not quadratic)
    "email": (r"[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}\b",
              "[e-mail address]"),
    "url": (r"\b(?:https?://|www\.)[^\s<>\"\]\[]+[^\s<>\"\]\[.,;:!?)]", "[web address]"),
    "iban": (r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b",
             "[bank account]"),
    "ip": (r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.]|\.\d)", "[IP address]"),
    # (the United States' social security number: 123-45-6789; other countries' numbers
    # are the recipe's own identifiers)
    "national_id": (r"(?<![\w-])\d{3}-\d{2}-\d{4}(?![\w-])", "[national identity number]"),
    # 7 to 15 digits, single spaces, dots, slashes or hyphens between them, a leading +
    # and brackets around an area code (E.164 numbers have at most 15 digits)
    "phone": (r"(?<![\w+])(?:\+|\b)(?:\(?\d\)?[ ./-]?){6,14}\d(?!\w)", "[phone number]"),
}

# Dates: the expression and which groups hold day, month, year. ``d/m/y`` and ``m/d/y``
# read numeric dates day first or month first (DATE_ORDERS).
_NUMERIC_DMY = r"(?<![\w/.-])(?P<a>\d{1,2})[/.-](?P<b>\d{1,2})[/.-]" + _YEAR + r"(?![\w/-])"
_ISO = r"(?<![\w/.-])" + _YEAR + r"-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?![\w/-])"
_DAY_MONTH = r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r",?\s+" + _YEAR + r"\b"
_MONTH_DAY = r"\b" + _MONTH + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+" + _YEAR + r"\b"
_MONTH_YEAR = r"\b" + _MONTH + r",?\s+" + _YEAR + r"\b"
_YEAR_ONLY = r"(?<![\w.,])" + _YEAR + r"(?![\w]|[.,]\d)"
DATE_ORDERS = ("dmy", "mdy")
PRECISIONS = ("day", "month", "year")  # finest first

# A number: a run of digits joined by single commas or points, read as one number with
# thousands separators and decimals where it is one (1,250.50), else as the numbers in
# it (a list 3,4,5): a detector that skipped the run would leave every number in it. A
# run starts after no letter or digit (v2.0 is a name), and after no digit and separator
# (which would be inside a run).
_NUMBER = r"(?<!\w)(?<!\d[.,])\d+(?:[.,]\d+)*(?!\w)"
_DIGITS = re.compile(r"\d+")
_ONE_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")

_BRACKETED = re.compile(r"\[([^\[\]\n]*)\]")
_NUMBER_LABEL = re.compile(r"[\d,]+ to under [\d,]+")
_SYNSET = re.compile(r"(.+)\.[nvasr]\.\d\d")
NO_CONCEPT = "sensitive term"  # the replacement when no ancestor is acceptable
MAX_DIGITS = 15  # a longer number is no quantity a text states (an account, a code)
LONG_NUMBER = "number"


def display(name: str) -> str:
    """How a concept is written in a text: its name, a WordNet synset's first lemma
    (``viral_infection.n.01`` -> ``viral infection``)."""
    found = _SYNSET.fullmatch(name)
    return found.group(1).replace("_", " ") if found else name


def fold(word: str) -> str:
    """A word as concepts are looked up: in lower case (as the regular expressions'
    IGNORECASE compares letters, one by one; ``casefold`` would turn "ß" into "ss")."""
    return word.lower()


def concept_index(tax: Taxonomy) -> dict[str, int]:
    """How each concept is written (:func:`display`, :func:`fold`) -> its code; of two
    concepts written alike (two senses of a word), the first by name; the ``*`` root
    joining several top concepts is no word."""
    index: dict[str, int] = {}
    for code in sorted(range(len(tax.names)), key=lambda c: tax.names[c]):
        if tax.names[code] != ROOT or tax.parent[code] >= 0:
            index.setdefault(fold(display(tax.names[code])), code)
    return index


def intrinsic_ic(tax: Taxonomy) -> np.ndarray:
    """Seco, Veale & Hayes' intrinsic information content of every concept:
    ``1 - log(hypo(c) + 1) / log(N)``, ``hypo(c)`` the number of concepts below ``c``,
    ``N`` the number of concepts (a leaf 1, the root 0; a one-concept taxonomy 0)."""
    n = len(tax.names)
    below = tax.subsumed_counts(np.ones(n)) - 1.0
    if n < 2:
        return np.zeros(n)
    return np.maximum(1.0 - np.log(below + 1.0) / math.log(n), 0.0)


def corpus_ic(tax: Taxonomy, occurrences: np.ndarray) -> np.ndarray:
    """Resnik's ``-log p(c)`` with ``p(c)`` the share of occurrences of ``c`` and the
    concepts below it, each concept counted once more than it occurs (add-one smoothing,
    so that a concept absent from the corpus has a finite IC)."""
    return information_content(tax, np.asarray(occurrences, dtype=float) + 1.0)


def leaves_below(tax: Taxonomy) -> np.ndarray:
    """The number of leaf concepts each concept subsumes (a leaf: 1)."""
    n = len(tax.names)
    has_child = np.zeros(n, dtype=bool)
    has_child[tax.parent[tax.parent >= 0]] = True
    return tax.subsumed_counts((~has_child).astype(float))


def generalisations(tax: Taxonomy, listed: Iterable[int], ic: np.ndarray,
                    max_ic: float | None = None, t: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Which concepts are sensitive, and the concept each is replaced by (-1: none is
    acceptable, written :data:`NO_CONCEPT`; a concept that is not sensitive: itself).

    Sensitive: a ``listed`` concept, one below a listed concept, or (``max_ic``) one whose
    IC exceeds ``max_ic`` (Sanchez et al. 2013). The replacement is the lowest ancestor
    that is not sensitive and subsumes at least ``t`` leaves (t-plausibility, Anandan et
    al. 2012); the root of the taxonomy never names a replacement when it is the ``*``
    joining several top concepts."""
    n = len(tax.names)
    sensitive = np.zeros(n, dtype=bool)
    sensitive[list(listed)] = True
    for i in np.argsort(tax.depth, kind="stable"):  # parents first: spread down
        p = tax.parent[i]
        if p >= 0 and sensitive[p]:
            sensitive[i] = True
    if max_ic is not None:
        sensitive |= ic > max_ic
    plausible = leaves_below(tax) >= t
    acceptable = ~sensitive & plausible
    if tax.names[tax.root] == ROOT:
        acceptable[tax.root] = False
    out = np.arange(n, dtype=np.int64)
    for i in np.flatnonzero(sensitive):
        out[i] = next((a for a in tax.ancestors(int(i)) if acceptable[a]), -1)
    return sensitive, out


@dataclass(frozen=True)
class Span:
    """A stretch ``text[start:end]`` a detector found: its ``kind`` (a term, a concept
    that is not sensitive, a date, a number, an identifier's name), what it is written
    as, and whether it says more than the policy allows (``finer``: every sensitive term,
    number and identifier; a date more precise than the precision kept)."""

    start: int
    end: int
    kind: str
    replacement: str
    finer: bool = True


@dataclass
class Policy:
    """What is detected and how each finding is generalised.

    ``tax`` and ``replace`` (from :func:`generalisations`) drive the terms; ``dates``
    (``day``, ``month``, ``year`` or None: not detected), ``date_order`` (numeric dates
    day or month first), ``numbers`` (``magnitude``, an interval width, or None: kept),
    ``identifiers`` (name -> (expression, replacement), built-in and recipe's, in order
    of priority), ``entities``: a function giving ``(start, end, label)`` of the named
    entities of a text, and the replacement of each label."""

    tax: Taxonomy | None = None
    sensitive: np.ndarray | None = None
    replace: np.ndarray | None = None
    dates: str | None = "year"
    date_order: str = "dmy"
    numbers: str | int | None = "magnitude"
    identifiers: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    entities: Callable[[str], Iterable[tuple[int, int, str]]] | None = None
    entity_labels: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._ids = [(name, re.compile(expr), label)
                     for name, (expr, label) in self.identifiers.items()]
        self._terms = None
        self._index = concept_index(self.tax) if self.tax is not None else {}
        if self.tax is not None:
            words = sorted(self._index, key=lambda w: (-len(w), w))
            if words:
                self._terms = re.compile(
                    r"(?<!\w)(?:" + "|".join(re.escape(w) for w in words) + r")(?!\w)",
                    re.IGNORECASE)
        numeric = (_NUMERIC_DMY.replace("(?P<a>", "(?P<d>").replace("(?P<b>", "(?P<m>")
                   if self.date_order == "dmy" else
                   _NUMERIC_DMY.replace("(?P<a>", "(?P<m>").replace("(?P<b>", "(?P<d>"))
        self._dates = [re.compile(e, re.IGNORECASE) for e in
                       (_ISO, numeric, _DAY_MONTH, _MONTH_DAY, _MONTH_YEAR, _YEAR_ONLY)]
        self._number = re.compile(_NUMBER)
        self._labels = ({label for _, _, label in self._ids}
                        | {f"[{v}]" for v in self.entity_labels.values()})

    # -- the concepts of a text ------------------------------------------------------
    def concepts(self, text: str) -> list[tuple[int, int, int]]:
        """``(start, end, concept)`` of every concept of the taxonomy the text names,
        whole words, case ignored, the longest name first."""
        if self._terms is None:
            return []
        return [(m.start(), m.end(), self._concept_of(m.group(0)))
                for m in self._terms.finditer(text)]

    def _concept_of(self, word: str) -> int:
        code = self._index.get(fold(word))
        if code is None:  # a letter that matches but lowers to other text (Turkish İ)
            code = next(c for w, c in sorted(self._index.items())
                        if re.fullmatch(re.escape(w), word, re.IGNORECASE))
        return code

    def term_replacement(self, code: int) -> str:
        target = int(self.replace[code])
        return f"[{display(self.tax.names[target]) if target >= 0 else NO_CONCEPT}]"

    # -- every finding ---------------------------------------------------------------
    def spans(self, text: str) -> list[Span]:
        """What the detectors find in ``text``, overlaps resolved: the earliest start
        wins, then the longest, then the detector listed first (dates, identifiers,
        entities, terms, numbers)."""
        found: list[tuple[int, int, int, Span]] = []

        def add(priority: int, span: Span) -> None:
            found.append((span.start, -(span.end - span.start), priority, span))

        # (dates first: a numeric date has the shape of a phone number too)
        if self.dates is not None:
            for expr in self._dates:
                for m in expr.finditer(text):
                    add(0, self._date(m))
        for rank, (name, expr, label) in enumerate(self._ids, start=1):
            for m in expr.finditer(text):
                if m.end() > m.start():
                    add(rank, Span(m.start(), m.end(), name, label))
        base = len(self._ids) + 1
        if self.entities is not None:
            for start, end, label in self.entities(text):
                if label in self.entity_labels and end > start:
                    add(base, Span(start, end, f"entity {label}",
                                   f"[{self.entity_labels[label]}]"))
        for start, end, code in self.concepts(text):
            if self.sensitive[code]:
                add(base + 1, Span(start, end, "term", self.term_replacement(code)))
            else:  # kept as it is, whole: "Type 2 diabetes" keeps its 2
                add(base + 1, Span(start, end, "concept", text[start:end], False))
        if self.numbers is not None:
            for m in self._number.finditer(text):
                parts = ([m] if _ONE_NUMBER.fullmatch(m.group(0))
                         else _DIGITS.finditer(text, m.start(), m.end()))
                for part in parts:
                    add(base + 2, Span(part.start(), part.end(), "number",
                                       self._interval(part.group(0))))
        out: list[Span] = []
        end = 0
        for _, _, _, span in sorted(found, key=lambda f: f[:3]):
            if span.start >= end:
                out.append(span)
                end = span.end
        return out

    def _date(self, m: re.Match) -> Span:
        groups = m.groupdict()
        year = int(groups["y"])
        month = None
        if groups.get("mon"):
            month = next(i for i, name in enumerate(MONTHS, 1)
                         if name.casefold().startswith(groups["mon"].casefold()))
        elif groups.get("m"):
            month = int(groups["m"])
            month = month if 1 <= month <= 12 else None
        precision = "day" if groups.get("d") else "month" if groups.get("mon") else "year"
        keep = self.dates
        if keep == "day":  # (kept whole: only bracketed, so that its digits are not numbers)
            text = m.group(0)
        elif keep == "month" and month is not None:
            text = f"{MONTHS[month - 1]} {year}"
        else:
            text = str(year)
        finer = PRECISIONS.index(precision) < PRECISIONS.index(keep)
        return Span(m.start(), m.end(), "date", f"[{text}]", finer)

    def _interval(self, number: str) -> str:
        """The interval of a number, in exact arithmetic (a number of more than
        :data:`MAX_DIGITS` digits before its decimals is only ``[number]``)."""
        whole, _, _ = number.replace(",", "").partition(".")
        digits = len(whole.lstrip("0"))
        if digits > MAX_DIGITS:
            return f"[{LONG_NUMBER}]"
        if self.numbers == "magnitude":
            low = 0 if digits < 2 else 10 ** (digits - 1)
            high = 10 if digits < 2 else low * 10
        else:
            width = int(self.numbers)
            low = int(Decimal(number.replace(",", "")) // width) * width
            high = low + width
        return f"[{low:,} to under {high:,}]"

    # -- what the release may hold in brackets ----------------------------------------
    def accepted(self, content: str) -> bool:
        """Whether ``[content]`` is a generalisation this policy writes: a label, a
        concept that is not sensitive, a number interval, a date at the precision kept
        (or coarser)."""
        if f"[{content}]" in self._labels or content in (NO_CONCEPT, LONG_NUMBER):
            return True
        code = self._index.get(fold(content))
        if code is not None:
            return not self.sensitive[code]
        if self.numbers is not None and _NUMBER_LABEL.fullmatch(content):
            return True
        if self.dates is not None:
            for expr in self._dates:
                m = expr.fullmatch(content)
                if m is not None:
                    return not self._date(m).finer
        return False


def sanitise(text: str, policy: Policy) -> tuple[str, list[Span]]:
    """``text`` with every finding of ``policy`` replaced by its generalisation, and the
    findings."""
    spans = policy.spans(text)
    parts, end = [], 0
    for s in spans:
        parts.append(text[end:s.start])
        parts.append(s.replacement)
        end = s.end
    parts.append(text[end:])
    return "".join(parts), spans


def residual(text: str, policy: Policy) -> list[Span]:
    """The findings of ``policy`` in a released text that say more than it allows, the
    generalisations it writes (bracketed, :meth:`Policy.accepted`) left aside: a listed
    term or one below it, a number, an identifier, a date finer than the precision kept.
    Empty for a text :func:`sanitise` wrote."""
    masked = _BRACKETED.sub(
        lambda m: "|" * len(m.group(0)) if policy.accepted(m.group(1)) else m.group(0), text)
    return [s for s in policy.spans(masked) if s.finer]


def information(texts: Sequence[str], policy: Policy, ic: np.ndarray) -> np.ndarray:
    """The sum of the information content of the concepts each text names."""
    return np.array([sum(float(ic[c]) for _, _, c in policy.concepts(t)) for t in texts])


def occurrences(texts: Iterable[str], policy: Policy) -> np.ndarray:
    """How often each concept of the taxonomy is named in ``texts``."""
    counts = np.zeros(len(policy.tax.names))
    for text in texts:
        for _, _, code in policy.concepts(text):
            counts[code] += 1
    return counts
