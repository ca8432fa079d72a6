"""Users do not have the project's internal specification files: README.md, the
documentation site (mkdocs.yml, docs/), the shipped recipes and every module of the
package cite the published works (authors, title, year),
never a specification file ("seed 000", "the seed's table", "000_1eece6b9d3791e64.txt").
Tests may still name those files in comments saying where an expected value comes from.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Each pattern is a way the specification files were referred to. The recipe's random
# ``seed`` ("the recipe's seed", "seed: 2026", "seed 7", "k-means++ seeding") must pass.
SPEC_REFERENCE = re.compile(
    r"\b00[0-4]_[0-9a-f]{16}(\.txt)?"           # a file name: 003_fc14c51a27fe5611.txt
    r"|\bseeds?\s+00[0-4]\b"                    # "seed 000", "seeds 000, 001", "seed\n004"
    r"|\bseeds?\s+[0-4]\b(?!\s*[),])"           # "seed 3" (not a value: "(k = 3, seed 7)")
    r"|\bseeds'(?=\s)|\bseed's\b"              # "the seed's table", "the seeds' tables"
    r"|\bthe\s+seed\s+(states|says|prints|writes|takes|divides|calls|applies|is\s+silent)\b"
    r"|(?<![\d,.])\b00[0-4]'s\b"                # "000's example"
    r"|(?<![\d,.x])\b00[0-4]\s+and\s+00[0-4]\b"  # "000 and 002"
    r"|\bseed\s+files?\b|shared/seeds",         # "the seed files", the folder itself
    re.IGNORECASE)


def _shipped_texts() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "mkdocs.yml"]
    files += sorted(p for p in (ROOT / "docs").rglob("*") if p.suffix in (".md", ".py", ".yaml"))
    files += sorted((ROOT / "recipes").glob("*.yaml"))
    files += sorted((ROOT / "sdcflow").rglob("*.py"))
    return files


def _references(text: str) -> list[str]:
    found = []
    for match in SPEC_REFERENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        found.append(f"line {line}: {match.group(0)!r}")
    return found


@pytest.mark.parametrize("path", _shipped_texts(), ids=lambda p: str(p.relative_to(ROOT)))
def test_shipped_text_cites_published_works_not_specification_files(path: Path) -> None:
    found = _references(path.read_text(encoding="utf-8"))
    assert not found, f"{path.relative_to(ROOT)} names a specification file: {found}"


@pytest.mark.parametrize("text", [
    "(seed 000, \"Rounding\")",
    "as the seed's table",
    "(seeds 003_fc14c51a27fe5611.txt, k-anonymity, and\n004_149321b221e875f3.txt)",
    "(seed\n004, MDAV)",
    "reproduces seed 004's sdcMicro matrix",
    "On 000's example",
    "fraction of each stratum (seed 000 and 002,",
    "(000 and 002, \"Sampling\")",
    "the seed states it",
    "where the seed is silent",
    "expected values come from the seed files",
])
def test_a_specification_reference_is_caught(text: str) -> None:
    # each text is a reference that was in the README or a docstring before issue 14
    assert _references(text)


@pytest.mark.parametrize("text", [
    "'seed' is set once, at the top level of the recipe",
    "seed: 2026                      # seed of every random generator",
    "Randomness comes only from the recipe's `seed`: each step",
    "blocks of three (k = 3, seed 7) MDAV gives 1,060",
    "k-means++ seeding (Arthur & Vassilvitskii 2007)",
    "the full manifest holds the seed (which regenerates the random draws",
    "MAX_INTERVALS = 1_000_000     # intervals",
    "100,000 records; 1e-300; 0.001 and 0.002",
    "V. Torra, \"Masking methods\", lecture notes, IIIA-CSIC, 2013",
])
def test_the_random_seed_and_numbers_are_not_flagged(text: str) -> None:
    assert not _references(text)
