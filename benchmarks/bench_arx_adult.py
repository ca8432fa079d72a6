"""The lattice search of ``anonymize`` on every Adult case of ARX's own test suite that
sdcflow can express (ARX 3.x, ``src/test/org/deidentifier/arx/test/TestAnonymization*.java``:
KAnonymity, LDiversity, EntropyLDiversity with Shannon's entropy, TCloseness,
OrderedDistanceTCloseness, DPresence, Combinations and RiskBased 0; 71 test cases, 56
distinct configurations), with ARX's data and hierarchies (tests/data/arx_adult).

    python benchmarks/bench_arx_adult.py                       # every case, this checkout
    python benchmarks/bench_arx_adult.py --cases TCloseness    # the cases whose name holds it
    python benchmarks/bench_arx_adult.py --sdcflow /work/main --json before.json
    python benchmarks/bench_arx_adult.py --before before.json  # columns before / after
    python benchmarks/bench_arx_adult.py --repeat 5            # least of 5, as ARX's figures

For each configuration: the ARX cases it stands for ("pm": ARX's run with practical
monotonicity, the same configuration), the CPU seconds (``time.process_time``: what the
search cost, whatever else ran on the machine) and wall seconds of one search, ARX's own
times on those cases, whether the optimal node and loss are ARX's expected ones (the loss
to 1e-12 relative) and whether sdcflow was faster; last, the totals and the
configurations where ARX was faster. ``--sdcflow DIR`` times the sdcflow of another checkout
(e.g. the main branch, for the "before" columns), ``--json`` writes the rows.

ARX's expected nodes and losses are those its test suite states. Six configurations
differ on purpose (see the documentation of ``anonymize``): Combinations 1, 50, 53, 75
and 78 (ARX's optimum holds a class of the population without a record of the research
subset; sdcflow keeps delta-presence as defined and fails such a node) and RiskBased 0
(ARX suppresses small classes until the average risk holds; sdcflow's average_risk
suppresses nothing itself). TCloseness 10, the practical-monotonicity run of TCloseness 2,
expects a worse node (loss 390765.61326019815): with that option ARX assumes a
monotonicity the models lack and need not find the optimum; it is left out.

Each configuration is searched exactly for ARX's cases without practical monotonicity
and with ``practical_monotonicity=True`` for ARX's cases with it ("pm": ARX then assumes
the targets monotone and need not find the optimum): 64 searches.

ARX's times (``arx_adult_times.json``, its "about" says how): ARX's own code, built and
run on this machine on the same cases from its own test suite, six runs of
``ARXAnonymizer.anonymize`` each in one JVM, in two sessions; the column "ARX s" is the
least CPU of runs 2-6 (JIT warm) over the ARX cases a search stands for, "ARX 1st" the
first run's wall time. anonymize() includes ARX's encoding of the loaded table (a few ms
at most: its quickest case takes 5 ms in all); sdcflow's figure is the search on coded
keys, with one BLAS thread as in a run (``--repeat 5``: the least of five, as ARX's).
Six hierarchical t-closeness cases are left out of the comparison: ARX as built here
returns another node than its tests expect (TCloseness 2, 3, 6, 7, 10 pm, 11 pm), so its
time measures another computation. An earlier version of this benchmark compared with
figures of whole ARX runs (JIT cold: KAnonymity 0 1.85 s, one delta-presence case 0.04 s).

Measured on 2026-11-27 (late) with ``--repeat 5`` (this 2-core machine, otherwise idle;
its speed varies by 10-20 % from run to run, most on the quickest cases): the 64
searches 3.5 CPU s, every node and loss as ARX's tests expect (the six differences
above apart); the 60 beside an ARX time 3.3 CPU s against ARX's 19.8, sdcflow faster on
all 60 in each of three full runs, e.g. KAnonymity 0 0.21 s (ARX 0.92), LDiversity 0
0.23 s (0.64), its practical-monotonicity run 0.10 s (0.165), OrderedDistanceTCloseness
0 0.24 s (0.44), DPresence 3 0.13 s (0.69), Combinations 117 0.13 s (1.61); no case
above 0.92 of ARX's time in any of the three. Closest, as a share of ARX's time, in one
of them: Combinations 7 9.4 ms (ARX 10.8), TCloseness 4 8.0 ms (9.2), LDiversity 5 pm
4.6 ms (5.3), LDiversity 3 4.8 ms (5.6), TCloseness 9 pm 8.5 ms (10.0); KAnonymity 3
8.3 ms (13.3), Combinations 8 15.9 ms (19.5). Before this round 13 of the 60 were
slower than ARX, by 2-16 ms. On the six hierarchical t-closeness cases left out,
sdcflow's time is below ARX's too (TCloseness 2 0.13 s against 0.29, 3 0.07 against
0.08, 6 9 ms against 19, 7 7 ms against 9, 11 pm 11 ms against 76), though ARX's there
computes another node.

The last round (no result changed; ``anonymize`` stays version 6) cut what a search
costs before and around its checks: the records grouped into the bottom class table by
a radix sort (``row_ids``: 2.6 -> 0.5 ms on 30,162 x 9 keys), value columns grouped
beside the keys without copying them into one matrix; the lattice's nodes and order,
the hierarchies' validation and maps, the codes' counts of the entropy and each unit's
final class each found in one compiled pass, and the hierarchies' maps shared by a
search's histories; Flash's next path start found by a compiled scan; a table's row
keys found from its classes' only when read; l-diversity's (class, value) pairs merged
in one pass when in order and recursive l-diversity's ratio compiled, the codes
validated once per target; the class sizes taken from the table with the values at
once when the nodes mostly need both (one roll-up for both); delta-presence beside a
target on records read from packed population tables, the data's classes found by
their keys; and, with practical monotonicity, "no node" proved by the top node failing
the targets' monotone part rather than by the exact search (LDiversity 5 pm 21 -> 5 ms).

Version 6 of ``anonymize``: delta-presence on joint class tables of data and
population, k-anonymity alone on the data's (DPresence 3-5 from 0.5, 0.33 and 0.37 s to
0.13, 0.08 and 0.09; KAnonymity 0 from 0.5-0.8 to 0.26), Flash's paths towards the
successor keeping fewest distinct values, the lattice's nodes as arrays and the
level-wise walk compiled (a search's fixed cost on the 12,960-node lattice from about
0.1 s to about 0.01 s), ARX's practical monotonicity as an option, one BLAS thread (a
threaded BLAS spent CPU waiting: KAnonymity 1 0.18 -> 0.10 CPU s).
"""

from __future__ import annotations

import argparse
import csv
import gc
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "arx_adult"

ENTROPY = ("non_uniform_entropy", "arx_monotonic")  # createPrecomputedEntropyMetric(0.1, true)
ENTROPY_NM = ("non_uniform_entropy", "arx_non_monotonic")  # (0.1, false) and (0.1)
DM_STAR = ("discernibility", "arx_monotonic")  # createDiscernabilityMetric(true)
AECS = ("average_class_size", "full")  # createAECSMetric()

# (ARX's cases, the configuration, ARX's optimal node (None: no node meets the targets)
# and loss); "l": (kind, l, c), "t": (t, distance), "delta": (delta_min, delta_max),
# "limit": the suppression limit, "sensitive": the attribute that is no quasi-identifier
CASES = [
    (['KAnonymity 0', 'KAnonymity 4 pm'], {'k': 5, 'loss': ENTROPY, 'limit': 0.04}, (1, 0, 1, 1, 3, 2, 2, 0, 1), 255559.85455731067),
    (['KAnonymity 1', 'KAnonymity 5 pm'], {'k': 100, 'loss': ENTROPY, 'limit': 0.04}, (1, 1, 1, 1, 3, 2, 2, 1, 1), 379417.3460570988),
    (['KAnonymity 2'], {'k': 5, 'loss': ENTROPY}, (1, 2, 1, 1, 3, 2, 2, 1, 1), 407289.5388925293),
    (['KAnonymity 3'], {'k': 100, 'loss': ENTROPY}, (0, 4, 1, 1, 3, 2, 2, 1, 1), 453196.8932458743),
    (['LDiversity 0', 'LDiversity 4 pm', 'EntropyLDiversity 4 pm'], {'l': ('entropy', 5.0, None), 'sensitive': 'occupation', 'loss': ENTROPY_NM, 'limit': 0.04}, (1, 0, 1, 1, 2, 2, 2, 1), 228878.2039109517),
    (['LDiversity 1', 'LDiversity 5 pm', 'EntropyLDiversity 1'], {'l': ('entropy', 100.0, None), 'sensitive': 'occupation', 'loss': ENTROPY_NM, 'limit': 0.04}, None, 0.0),
    (['LDiversity 2'], {'l': ('entropy', 5.0, None), 'sensitive': 'occupation', 'loss': ENTROPY_NM}, (1, 1, 1, 1, 3, 2, 2, 1), 324620.5269918692),
    (['LDiversity 3'], {'l': ('entropy', 100.0, None), 'sensitive': 'occupation', 'loss': ENTROPY_NM}, None, 0.0),
    (['TCloseness 0', 'TCloseness 8 pm'], {'t': (0.2, 'equal'), 'k': 5, 'sensitive': 'occupation', 'loss': DM_STAR, 'limit': 0.04}, (1, 4, 1, 0, 3, 2, 2, 1), 311880088.0),
    (['TCloseness 1', 'TCloseness 9 pm'], {'t': (0.2, 'equal'), 'k': 100, 'sensitive': 'occupation', 'loss': DM_STAR, 'limit': 0.04}, (1, 4, 1, 0, 3, 2, 2, 1), 311880088.0),
    (['TCloseness 2'], {'k': 5, 't': (0.2, 'hierarchical'), 'sensitive': 'occupation', 'loss': ENTROPY, 'limit': 0.04}, (1, 4, 0, 0, 3, 2, 2, 1), 377622.78458729305),
    (['TCloseness 3', 'TCloseness 11 pm'], {'k': 100, 't': (0.2, 'hierarchical'), 'sensitive': 'occupation', 'loss': ENTROPY, 'limit': 0.04}, (1, 4, 1, 0, 3, 1, 2, 1), 390765.61326019815),
    (['TCloseness 4'], {'t': (0.2, 'equal'), 'k': 5, 'sensitive': 'occupation', 'loss': DM_STAR}, (1, 4, 1, 1, 3, 2, 2, 1), 456853172.0),
    (['TCloseness 5'], {'t': (0.2, 'equal'), 'k': 100, 'sensitive': 'occupation', 'loss': DM_STAR}, (1, 4, 1, 1, 3, 2, 2, 1), 456853172.0),
    (['TCloseness 6', 'Combinations 3'], {'k': 5, 't': (0.2, 'hierarchical'), 'sensitive': 'occupation', 'loss': ENTROPY}, (0, 4, 1, 1, 3, 2, 2, 1), 398400.0741806447),
    (['TCloseness 7'], {'k': 100, 't': (0.2, 'hierarchical'), 'sensitive': 'occupation', 'loss': ENTROPY}, (0, 4, 1, 1, 3, 2, 2, 1), 398400.0741806447),
    (['OrderedDistanceTCloseness 0'], {'t': (0.2, 'ordered'), 'k': 5, 'sensitive': 'occupation', 'loss': DM_STAR, 'limit': 0.04}, (0, 0, 1, 1, 2, 2, 2, 0), 2712340.0),
    (['OrderedDistanceTCloseness 1', 'OrderedDistanceTCloseness 5 pm'], {'t': (0.2, 'ordered'), 'k': 100, 'sensitive': 'occupation', 'loss': DM_STAR, 'limit': 0.04}, (1, 0, 1, 2, 3, 2, 2, 1), 19937246.0),
    (['OrderedDistanceTCloseness 2'], {'t': (0.1, 'ordered'), 'k': 5, 'sensitive': 'occupation', 'loss': DM_STAR}, (1, 1, 1, 2, 3, 2, 2, 1), 97868020.0),
    (['OrderedDistanceTCloseness 3'], {'t': (0.2, 'ordered'), 'k': 100, 'sensitive': 'occupation', 'loss': DM_STAR}, (1, 4, 1, 1, 1, 2, 2, 1), 162312130.0),
    (['OrderedDistanceTCloseness 4 pm'], {'t': (0.05, 'ordered'), 'k': 5, 'sensitive': 'occupation', 'loss': DM_STAR, 'limit': 0.04}, (1, 4, 1, 0, 3, 2, 2, 0), 201413138.0),
    (['DPresence 0'], {'delta': (0.0, 0.2), 'sensitive': 'occupation', 'loss': AECS}, (1, 4, 1, 1, 0, 2, 2, 0), 52.0),
    (['DPresence 1'], {'delta': (0.0, 0.2), 'sensitive': 'occupation', 'loss': ENTROPY}, (0, 1, 1, 2, 3, 2, 2, 0), 30238.2081484441),
    (['DPresence 2'], {'delta': (0.0, 0.2), 'sensitive': 'occupation', 'loss': ENTROPY_NM}, (0, 1, 1, 2, 3, 2, 2, 0), 30238.2081484441),
    (['DPresence 3'], {'delta': (0.0, 0.2), 'sensitive': 'occupation', 'loss': AECS, 'limit': 0.05}, (0, 0, 1, 2, 1, 2, 2, 1), 8.02127659574468),
    (['DPresence 4'], {'delta': (0.0, 0.2), 'sensitive': 'occupation', 'loss': ENTROPY, 'limit': 0.05}, (1, 0, 1, 1, 2, 2, 2, 0), 19804.2887675027),
    (['DPresence 5'], {'delta': (0.0, 0.2), 'sensitive': 'occupation', 'loss': ENTROPY_NM, 'limit': 0.05}, (1, 0, 1, 1, 2, 2, 2, 0), 20747.362350403302),
    (['DPresence 6'], {'delta': (0.05, 0.15), 'sensitive': 'occupation', 'loss': AECS}, (0, 4, 0, 1, 3, 2, 2, 1), 150.8),
    (['DPresence 7', 'Combinations 0'], {'delta': (0.05, 0.15), 'sensitive': 'occupation', 'loss': ENTROPY}, (1, 4, 1, 1, 1, 2, 2, 1), 37223.2491248282),
    (['DPresence 8'], {'delta': (0.05, 0.15), 'sensitive': 'occupation', 'loss': ENTROPY_NM}, (1, 4, 1, 1, 1, 2, 2, 1), 37223.2491248282),
    (['DPresence 9'], {'delta': (0.05, 0.15), 'sensitive': 'occupation', 'loss': AECS, 'limit': 0.05}, (1, 4, 1, 1, 0, 2, 2, 1), 97.29032258064517),
    (['DPresence 10', 'Combinations 100'], {'delta': (0.05, 0.15), 'sensitive': 'occupation', 'loss': ENTROPY, 'limit': 0.05}, (1, 4, 1, 1, 0, 2, 2, 1), 33649.9118226187),
    (['DPresence 11', 'Combinations 115'], {'delta': (0.05, 0.15), 'sensitive': 'occupation', 'loss': ENTROPY_NM, 'limit': 0.05}, (1, 4, 1, 1, 0, 2, 2, 1), 33660.3063277646),
    (['Combinations 1'], {'k': 5, 'delta': (0.05, 0.15), 'sensitive': 'occupation', 'loss': ENTROPY}, (0, 2, 1, 2, 3, 2, 2, 1), 35461.300017243804),
    (['Combinations 2'], {'k': 5, 't': (0.2, 'hierarchical'), 'delta': (0.05, 0.15), 'sensitive': 'occupation', 'loss': ENTROPY}, (1, 4, 1, 1, 3, 2, 2, 1), 42481.619746031596),
    (['Combinations 4'], {'k': 5, 'sensitive': 'occupation', 'loss': ENTROPY}, (1, 1, 1, 1, 3, 2, 2, 1), 324620.5269918692),
    (['Combinations 5'], {'t': (0.2, 'hierarchical'), 'delta': (0.05, 0.15), 'sensitive': 'occupation', 'loss': ENTROPY}, (1, 4, 1, 1, 3, 2, 2, 1), 42481.619746031596),
    (['Combinations 6'], {'t': (0.2, 'hierarchical'), 'sensitive': 'occupation', 'loss': ENTROPY}, (0, 4, 1, 1, 3, 2, 2, 1), 398400.0741806447),
    (['Combinations 7'], {'l': ('recursive', 5, 4.0), 'delta': (0.05, 0.15), 'sensitive': 'occupation', 'loss': ENTROPY}, (1, 4, 1, 1, 2, 2, 2, 1), 39177.7411830619),
    (['Combinations 8'], {'l': ('recursive', 5, 4.0), 'sensitive': 'occupation', 'loss': ENTROPY}, (1, 1, 1, 1, 3, 2, 2, 1), 324620.5269918692),
    (['Combinations 45'], {'k': 5, 'sensitive': 'occupation', 'loss': ENTROPY_NM, 'limit': 0.05}, (0, 0, 1, 1, 2, 2, 2, 0), 180132.40848244698),
    (['Combinations 50'], {'k': 5, 'delta': (0.05, 0.15), 'sensitive': 'occupation', 'loss': ENTROPY, 'limit': 0.05}, (1, 0, 1, 2, 2, 2, 2, 1), 25247.843728345997),
    (['Combinations 51'], {'k': 5, 't': (0.2, 'hierarchical'), 'delta': (0.05, 0.15), 'sensitive': 'occupation', 'loss': ENTROPY, 'limit': 0.05}, (1, 4, 0, 1, 3, 2, 2, 1), 40089.9423426752),
    (['Combinations 52'], {'k': 5, 't': (0.2, 'hierarchical'), 'sensitive': 'occupation', 'loss': ENTROPY, 'limit': 0.05}, (1, 4, 0, 0, 3, 1, 2, 1), 367390.5779876774),
    (['Combinations 53'], {'l': ('recursive', 5, 4.0), 'delta': (0.05, 0.15), 'sensitive': 'occupation', 'loss': ENTROPY, 'limit': 0.05}, (1, 0, 1, 2, 3, 2, 2, 1), 28551.7222913157),
    (['Combinations 54'], {'l': ('recursive', 5, 4.0), 'sensitive': 'occupation', 'loss': ENTROPY, 'limit': 0.05}, (1, 0, 1, 1, 2, 2, 2, 0), 198181.4042332967),
    (['Combinations 75'], {'k': 5, 'delta': (0.05, 0.15), 'sensitive': 'occupation', 'loss': ENTROPY_NM, 'limit': 0.05}, (1, 0, 1, 2, 2, 2, 2, 1), 25949.0068665567),
    (['Combinations 76'], {'k': 5, 't': (0.2, 'hierarchical'), 'delta': (0.05, 0.15), 'sensitive': 'occupation', 'loss': ENTROPY_NM, 'limit': 0.05}, (1, 4, 0, 1, 3, 2, 2, 1), 40282.23779327559),
    (['Combinations 77'], {'k': 5, 't': (0.2, 'hierarchical'), 'sensitive': 'occupation', 'loss': ENTROPY_NM, 'limit': 0.05}, (1, 4, 0, 0, 3, 1, 2, 1), 374778.01889889664),
    (['Combinations 78'], {'l': ('recursive', 5, 4.0), 'delta': (0.05, 0.15), 'sensitive': 'occupation', 'loss': ENTROPY_NM, 'limit': 0.05}, (1, 0, 1, 2, 3, 2, 2, 1), 28759.669970588497),
    (['Combinations 79'], {'l': ('recursive', 5, 4.0), 'sensitive': 'occupation', 'loss': ENTROPY_NM, 'limit': 0.05}, (1, 0, 1, 1, 2, 2, 2, 0), 209764.96161974416),
    (['Combinations 101'], {'t': (0.2, 'hierarchical'), 'delta': (0.05, 0.15), 'sensitive': 'occupation', 'loss': ENTROPY, 'limit': 0.05}, (1, 4, 0, 1, 3, 2, 2, 1), 40089.9423426752),
    (['Combinations 102'], {'t': (0.2, 'hierarchical'), 'sensitive': 'occupation', 'loss': ENTROPY, 'limit': 0.05}, (1, 4, 0, 0, 3, 1, 2, 1), 367390.5779876774),
    (['Combinations 116'], {'t': (0.2, 'hierarchical'), 'delta': (0.05, 0.15), 'sensitive': 'occupation', 'loss': ENTROPY_NM, 'limit': 0.05}, (1, 4, 0, 1, 3, 2, 2, 1), 40282.23779327559),
    (['Combinations 117'], {'t': (0.2, 'hierarchical'), 'sensitive': 'occupation', 'loss': ENTROPY_NM, 'limit': 0.05}, (1, 4, 0, 0, 3, 1, 2, 1), 374778.01889889664),
    (['RiskBased 0'], {'risk': 0.01, 'loss': ENTROPY_NM, 'limit': 0.04}, (1, 0, 1, 1, 3, 2, 2, 1, 1), 314637.8461904862),
]

# the configurations where sdcflow differs from ARX on purpose (see above)
DIFFERS = {"Combinations 1", "Combinations 50", "Combinations 53", "Combinations 75",
           "Combinations 78", "RiskBased 0"}
# cheap cases run first, untimed, that use every compiled kernel of the search
WARM_UP = {"TCloseness 4", "OrderedDistanceTCloseness 3", "DPresence 9", "Combinations 2",
           "LDiversity 3", "Combinations 7", "KAnonymity 3", "DPresence 11"}
# ARX's own times on these cases, measured on this machine (how: the file's "about")
ARX_TIMES = json.loads((Path(__file__).with_name("arx_adult_times.json")).read_text())["cases"]


def arx_test():
    """The ARX test module (tests/methods/non_perturbative/test_anonymize_arx.py): its
    readers of ARX's data, codes and sensitive hierarchy."""
    sys.path.insert(0, str(ROOT / "tests" / "methods" / "non_perturbative"))
    import test_anonymize_arx
    return test_anonymize_arx


def load() -> tuple:
    arx = arx_test()
    data, levels = arx.read("adult.csv"), {}
    for key in data.columns:
        with open(DATA / f"adult_hierarchy_{key}.csv", newline="") as fh:
            rows = [r for r in csv.reader(fh, delimiter=";") if r]
        levels[key] = [list(col) for col in zip(*rows, strict=True)]
    return arx, data, arx.read("adult_subset.csv"), levels


def prepare(loaded, case: dict):
    """The search's arguments for one configuration."""
    from sdcflow.kernels.privacy import lattice
    from sdcflow.kernels.privacy.model_targets import delta_presence_target
    arx, data, subset, levels = loaded
    keys = [c for c in data.columns if c != case.get("sensitive")]
    sample = subset if "delta" in case else data
    codes, maps = arx.key_codes(sample, levels, keys)
    targets = []
    if "k" in case:
        targets.append(lattice.k_anonymity(case["k"]))
    if "delta" in case:
        population, _ = arx.key_codes(data, levels, keys)
        targets.append(delta_presence_target(population, maps, *case["delta"]))
    if "l" in case:
        kind, l_value, c = case["l"]
        sens = arx.sensitive_codes(sample, data, case["sensitive"])
        targets.append(lattice.l_diversity_target(sens, l_value, kind, c))
    if "t" in case:
        sens = arx.sensitive_codes(sample, data, case["sensitive"])
        tree = arx.ancestors(data, levels[case["sensitive"]], case["sensitive"])
        distance = case["t"][1]
        targets.append(lattice.t_closeness_target(
            sens, case["t"][0], distance, tree if distance == "hierarchical" else None))
    if "risk" in case:
        targets.append(lattice.average_risk(case["risk"]))
    loss, charged = case["loss"]
    return codes, maps, targets, {"loss": loss, "suppression_limit": case.get("limit", 0.0),
                                  "k": case.get("k", 1), "suppression_loss": charged}


def run_case(loaded, case: dict, practical: bool = False):
    """(CPU s, wall s, node, loss, nodes checked) of one search, with one BLAS thread as
    in a run (sdcflow.engine.blas); ``practical``: with practical monotonicity."""
    from sdcflow.engine.blas import one_blas_thread
    from sdcflow.kernels.privacy.lattice import search
    codes, maps, targets, kwargs = prepare(loaded, case)
    loss = kwargs.pop("loss")
    if practical:
        kwargs["practical_monotonicity"] = True
    # (the garbage of the cases before collected first: a full collection of the
    # interpreter's objects, ~0.08 s, would otherwise fall on whichever case comes next)
    gc.collect()
    with one_blas_thread():
        cpu, wall = time.process_time(), time.perf_counter()
        result = search(codes, maps, targets, loss, **kwargs)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return cpu, wall, result.node, result.loss, result.checked


def matches(node, loss, arx_node, arx_loss) -> bool:
    if node is None or arx_node is None:
        return node is None and arx_node is None
    return tuple(node) == tuple(arx_node) and abs(loss - arx_loss) <= 1e-12 * abs(arx_loss)


def reproduced(name: str) -> bool:
    """Whether ARX, as built here, returned its test's expected loss on the case (six
    hierarchical t-closeness cases return another node: their times measure another
    computation and are left out)."""
    case = ARX_TIMES.get(name)
    if case is None:
        return False
    if case["loss"] == "null":
        return float(case["expected_loss"]) == 0.0  # (no node, as the test expects)
    got, expected = float(case["loss"]), float(case["expected_loss"])
    return abs(got - expected) <= 1e-9 * max(1.0, abs(expected))


def arx_times(names: list[str]) -> tuple[float, float, str]:
    """ARX's least CPU seconds (JIT warm) over the cases a search stands for where ARX
    returned its test's expected optimum, its first run's wall seconds there, and that
    case's name (NaN: no such case)."""
    known = [(ARX_TIMES[n]["cpu_min"], ARX_TIMES[n]["first_wall"], n) for n in names
             if reproduced(n)]
    return min(known) if known else (float("nan"), float("nan"), "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default="", help="only the cases whose name holds this")
    parser.add_argument("--sdcflow", help="time the sdcflow of this checkout")
    parser.add_argument("--json", help="write the rows to this file")
    parser.add_argument("--before", help="rows of an earlier run (--json) to show beside")
    parser.add_argument("--repeat", type=int, default=1,
                        help="time each search this many times, keep the least CPU (as "
                             "ARX's figures are the least of five runs)")
    args = parser.parse_args()
    if args.sdcflow:
        sys.path.insert(0, str(Path(args.sdcflow).resolve()))
    import sdcflow
    print(f"sdcflow from {Path(sdcflow.__file__).parent}")
    before = {}
    if args.before:
        before = {r["cases"]: r for r in json.loads(Path(args.before).read_text())}
    loaded = load()
    # numba loads each compiled kernel from its cache the first time it runs (about 0.7
    # CPU s in all): a few cheap cases, untimed, so that no case is charged for it
    for names, case, _, _ in CASES:
        if WARM_UP & set(names):
            run_case(loaded, case)
    print(f"(warmed up on {', '.join(sorted(WARM_UP))}, untimed)")
    rows = []
    head = (f"{'cases':<44} {'cpu s':>7} {'wall s':>7} {'before':>7} {'bef wall':>8} "
            f"{'ARX s':>6} {'ARX 1st':>7} {'checked':>7}  ARX's node and loss; speed")
    print(head)
    slower = []
    # each configuration searched exactly for ARX's cases without practical monotonicity,
    # and with it for ARX's cases with it ("pm"), each beside ARX's time on those cases
    runs = [(group, case, arx_node, arx_loss, practical)
            for names, case, arx_node, arx_loss in CASES
            for practical in (False, True)
            for group in [[n for n in names if n.endswith(" pm") == practical]] if group]
    for names, case, arx_node, arx_loss, practical in runs:
        label = ", ".join(names)
        if args.cases not in label:
            continue
        cpu, wall, node, loss, checked = min(run_case(loaded, case, practical)
                                             for _ in range(max(args.repeat, 1)))
        same = matches(node, loss, arx_node, arx_loss)
        verdict = ("same" if same else
                   "differs (on purpose)" if DIFFERS & set(names) else "DIFFERS")
        old = before.get(label, {})
        arx_cpu, arx_first, arx_case = arx_times(names)
        speed = ("no ARX time (ARX here returns another node)" if not arx_case else
                 "faster" if cpu < arx_cpu else f"slower than {arx_case}")
        if arx_case and cpu >= arx_cpu:
            slower.append(label)
        print(f"{label:<44} {cpu:7.3f} {wall:7.3f} "
              f"{old.get('cpu', float('nan')):7.3f} {old.get('wall', float('nan')):8.3f} "
              f"{arx_cpu:6.3f} {arx_first:7.3f} {checked:7d}  {verdict}; {speed}",
              flush=True)
        rows.append({"cases": label, "cpu": cpu, "wall": wall, "node": node, "loss": loss,
                     "checked": checked, "verdict": verdict, "arx_cpu": arx_cpu})
    total = sum(r["cpu"] for r in rows)
    print(f"total: {total:.1f} CPU s for {len(rows)} searches "
          f"({sum(len(c[0]) for c in CASES if args.cases in ', '.join(c[0]))} ARX cases)"
          + (f"; before {sum(before[r['cases']]['cpu'] for r in rows if r['cases'] in before):.1f}"
             if before else ""))
    timed = [r for r in rows if r["arx_cpu"] == r["arx_cpu"]]  # (not NaN)
    print(f"beside ARX's times (JIT warm, least of its cases per search), {len(timed)} "
          f"searches: sdcflow {sum(r['cpu'] for r in timed):.1f} CPU s, ARX "
          f"{sum(r['arx_cpu'] for r in timed):.1f}; sdcflow faster on "
          f"{len(timed) - len(slower)} of {len(timed)}"
          + (f", slower on: {', '.join(slower)}" if slower else ""))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
