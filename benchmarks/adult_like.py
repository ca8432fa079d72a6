"""A seeded generator of adult-like records: the attributes of the UCI Adult data set
(R. Kohavi & B. Becker, "Adult", UCI Machine Learning Repository, 1996; the 1994 US
Current Population Survey) drawn with roughly its marginal proportions, and the
generalisation hierarchies that ARX's and anjana's Adult examples use (age intervals of
5, 10 and 20 years, then ``*``; education by school level, then lower/higher education;
marital status by whether the spouse is present; work class by sector; occupation by
kind of work; native country by continent; race and sex straight to ``*``).

The hierarchies are written as ARX writes them (``hierarchies/adult_<variable>.csv``):
one row per original value, ``;``-separated, the original value first and each level's
label after it, finest first, the last level ``*``; anjana reads the same columns as its
``{level: values}`` dictionaries.

    python benchmarks/adult_like.py   # rewrites the CSV files beside this script

Marginals only: the attributes are drawn independently except salary-class, whose share
above 50K grows with education and age as in the real file, so the data have the Adult
file's rare combinations (few people per age, country and education) but none of its
finer structure; it is a benchmark input, not a stand-in for the data.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd

HIERARCHY_DIR = Path(__file__).parent / "hierarchies"
KEYS = ["age", "workclass", "education", "marital-status", "race", "sex", "native-country"]

WORKCLASS = {"Private": (0.739, "Non-Government"), "Self-emp-not-inc": (0.083, "Non-Government"),
             "Self-emp-inc": (0.036, "Non-Government"), "Local-gov": (0.068, "Government"),
             "State-gov": (0.042, "Government"), "Federal-gov": (0.031, "Government"),
             "Without-pay": (0.0005, "Unemployed"), "Never-worked": (0.0002, "Unemployed")}
EDUCATION = {
    "HS-grad": (0.323, "High School", "Secondary education"),
    "Some-college": (0.224, "Undergraduate", "Higher education"),
    "Bachelors": (0.164, "Undergraduate", "Higher education"),
    "Masters": (0.053, "Graduate", "Higher education"),
    "Assoc-voc": (0.042, "Professional Education", "Higher education"),
    "11th": (0.036, "High School", "Secondary education"),
    "Assoc-acdm": (0.033, "Professional Education", "Higher education"),
    "10th": (0.029, "High School", "Secondary education"),
    "7th-8th": (0.020, "Primary School", "Primary education"),
    "Prof-school": (0.018, "Professional Education", "Higher education"),
    "9th": (0.016, "High School", "Secondary education"),
    "12th": (0.013, "High School", "Secondary education"),
    "Doctorate": (0.013, "Graduate", "Higher education"),
    "5th-6th": (0.010, "Primary School", "Primary education"),
    "1st-4th": (0.005, "Primary School", "Primary education"),
    "Preschool": (0.0016, "Primary School", "Primary education"),
}
MARITAL = {"Married-civ-spouse": (0.460, "spouse present"),
           "Never-married": (0.328, "spouse not present"),
           "Divorced": (0.136, "spouse not present"), "Separated": (0.031, "spouse not present"),
           "Widowed": (0.030, "spouse not present"),
           "Married-spouse-absent": (0.013, "spouse not present"),
           "Married-AF-spouse": (0.0007, "spouse present")}
OCCUPATION = {"Prof-specialty": (0.134, "Technical"), "Craft-repair": (0.133, "Technical"),
              "Exec-managerial": (0.132, "Nontechnical"), "Adm-clerical": (0.123, "Nontechnical"),
              "Sales": (0.119, "Nontechnical"), "Other-service": (0.107, "Other"),
              "Machine-op-inspct": (0.065, "Technical"), "Transport-moving": (0.052, "Other"),
              "Handlers-cleaners": (0.045, "Nontechnical"), "Farming-fishing": (0.032, "Other"),
              "Tech-support": (0.030, "Technical"), "Protective-serv": (0.021, "Other"),
              "Priv-house-serv": (0.005, "Other"), "Armed-Forces": (0.0003, "Other")}
RELATIONSHIP = {"Husband": 0.405, "Not-in-family": 0.255, "Own-child": 0.155,
                "Unmarried": 0.106, "Wife": 0.048, "Other-relative": 0.030}
RACE = {"White": 0.854, "Black": 0.096, "Asian-Pac-Islander": 0.032,
        "Amer-Indian-Eskimo": 0.0096, "Other": 0.0083}
SEX = {"Male": 0.669, "Female": 0.331}
COUNTRY = {"United-States": (0.913, "North America"), "Mexico": (0.020, "North America"),
           "Philippines": (0.006, "Asia"), "Germany": (0.0043, "Europe"),
           "Canada": (0.0037, "North America"), "Puerto-Rico": (0.0035, "North America"),
           "El-Salvador": (0.0033, "South America"), "India": (0.0031, "Asia"),
           "Cuba": (0.0029, "North America"), "England": (0.0028, "Europe"),
           "Jamaica": (0.0025, "North America"), "China": (0.0023, "Asia"),
           "Italy": (0.0023, "Europe"), "Dominican-Republic": (0.0021, "North America"),
           "Vietnam": (0.0020, "Asia"), "Guatemala": (0.0020, "South America"),
           "Japan": (0.0019, "Asia"), "Poland": (0.0018, "Europe"),
           "Columbia": (0.0018, "South America"), "Iran": (0.0014, "Asia"),
           "Haiti": (0.0014, "North America"), "Portugal": (0.0011, "Europe"),
           "Peru": (0.0010, "South America"), "France": (0.0009, "Europe")}
HIGHER = {"Bachelors": 0.41, "Masters": 0.55, "Prof-school": 0.73, "Doctorate": 0.74}


def _draw(rng: np.random.Generator, table: dict, n: int) -> np.ndarray:
    names = list(table)
    p = np.array([v[0] if isinstance(v, tuple) else v for v in table.values()])
    return np.array(names, dtype=object)[rng.choice(len(names), size=n, p=p / p.sum())]


def adult_like(n: int, seed: int = 1994) -> pd.DataFrame:
    """``n`` adult-like records (text columns; age as the text of a whole number)."""
    rng = np.random.default_rng(seed)
    age = np.clip(np.rint(17 + rng.gamma(2.2, 9.6, n)), 17, 90).astype(int)
    education = _draw(rng, EDUCATION, n)
    rich = np.array([HIGHER.get(e, 0.16) for e in education]) * np.where(age < 25, 0.1, 1.0)
    return pd.DataFrame({
        "age": age.astype(str), "workclass": _draw(rng, WORKCLASS, n), "education": education,
        "marital-status": _draw(rng, MARITAL, n), "occupation": _draw(rng, OCCUPATION, n),
        "relationship": _draw(rng, RELATIONSHIP, n), "race": _draw(rng, RACE, n),
        "sex": _draw(rng, SEX, n), "native-country": _draw(rng, COUNTRY, n),
        "salary-class": np.where(rng.random(n) < rich, ">50K", "<=50K"),
    })


def _age_rows() -> list[list[str]]:
    rows = []
    for a in range(17, 91):
        rows.append([str(a)] + [f"{a // w * w}-{a // w * w + w - 1}" for w in (5, 10, 20)]
                    + ["*"])
    return rows


def hierarchy_rows() -> dict[str, list[list[str]]]:
    """Each variable's hierarchy: rows of (original value, level 1 label, ..., ``*``)."""
    def rows(table: dict, levels: int) -> list[list[str]]:
        return [[k, *list(v[1:1 + levels]), "*"] for k, v in table.items()]
    return {"age": _age_rows(), "workclass": rows(WORKCLASS, 1),
            "education": rows(EDUCATION, 2), "marital-status": rows(MARITAL, 1),
            "occupation": rows(OCCUPATION, 1), "race": [[k, "*"] for k in RACE],
            "sex": [[k, "*"] for k in SEX], "native-country": rows(COUNTRY, 1)}


def write_hierarchies(directory: Path = HIERARCHY_DIR) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, table in hierarchy_rows().items():
        with open(directory / f"adult_{name}.csv", "w", newline="") as f:
            csv.writer(f, delimiter=";", lineterminator="\n").writerows(table)


def read_hierarchy(path: Path) -> list[list[str]]:
    """An ARX hierarchy CSV as its columns: level 0 (the original values), 1, ..."""
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f, delimiter=";") if r]
    return [list(col) for col in zip(*rows, strict=True)]


if __name__ == "__main__":
    write_hierarchies()
    print(f"hierarchies written to {HIERARCHY_DIR}")
