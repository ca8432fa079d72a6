"""Write the files of the shipped recipe ``recipes/census_schema_linkage.yaml`` from the
shipped synthetic census (``synthetic_census``: 20,000 persons), with a seed.

    python benchmarks/make_census_register.py [--seed 2024] [--out recipes/data]

* ``census_sample.csv``: a research sample of 600 persons (``person``: the census row,
  ``P00001`` ...; municipality, sex, age, citizenship as the census codes them);
* ``census_register.csv``: an intruder's register of 600 persons, 300 of them in the
  sample and 300 not, with its own names and codes: ``person_id``; ``district``, the
  county (the census's middle level of geography: coarser than the municipality);
  ``gender`` M / F for the census's sex 1 / 2; ``years``, the age; ``nationality``
  NAT, EU, EUR, AFR, OTH for the citizenship codes 1 to 5. Rows in random order;
* ``census_geography.json``: the census's geography as a taxonomy (county above
  municipality, region ``R1`` ... above county), as ``{"parents": {child: parent}}``.

The same seed gives the same files.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
CENSUS = ROOT / "sdcflow" / "data" / "datasets" / "synthetic_census.csv"
GENDER = {"1": "M", "2": "F"}
NATIONALITY = {"1": "NAT", "2": "EU", "3": "EUR", "4": "AFR", "5": "OTH"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--out", type=Path, default=ROOT / "recipes" / "data")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    census = pd.read_csv(CENSUS, dtype=str)
    census.insert(0, "person", [f"P{i + 1:05d}" for i in range(len(census))])
    rows = rng.permutation(len(census))
    sample = census.iloc[np.sort(rows[:600])]
    # the register: 300 of the sample and 300 persons outside it
    register = census.iloc[np.concatenate([rng.choice(rows[:600], 300, replace=False),
                                           rows[600:900]])]
    register = register.iloc[rng.permutation(len(register))]
    sample[["person", "municipality", "sex", "age", "citizenship"]].to_csv(
        args.out / "census_sample.csv", index=False, lineterminator="\n")
    pd.DataFrame({"person_id": register["person"], "district": register["county"],
                  "gender": register["sex"].map(GENDER), "years": register["age"],
                  "nationality": register["citizenship"].map(NATIONALITY)}).to_csv(
        args.out / "census_register.csv", index=False, lineterminator="\n")
    parents: dict[str, str | None] = {}
    for _, r in census[["municipality", "county", "nuts2"]].drop_duplicates().iterrows():
        parents[r["municipality"]] = r["county"]
        parents[r["county"]] = f"R{r['nuts2']}"
        parents[f"R{r['nuts2']}"] = None
    parents = dict(sorted(parents.items()))
    (args.out / "census_geography.json").write_text(
        json.dumps({"parents": parents}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
