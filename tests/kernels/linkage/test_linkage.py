"""sdcflow.kernels.linkage.linkage: the record linkage kernels under their former module
name, each the very object of its own module."""

import importlib

from sdcflow.kernels.linkage import linkage


def test_every_public_name_is_the_object_of_its_new_home():
    homes = {
        "sdcflow.kernels.linkage.coordinates": ["agreement_coordinates",
                                                "mahalanobis_transform", "standardize",
                                                "weighted"],
        "sdcflow.kernels.linkage.distance_linkage": ["BLOCK_ELEMENTS", "KDTREE_MAX_DIM",
                                                     "nearest_links"],
        "sdcflow.kernels.linkage.fellegi_sunter": ["fellegi_sunter_em", "pattern_weights"],
        "sdcflow.kernels.linkage.links": ["Links"],
        "sdcflow.kernels.linkage.pattern_counts": ["PRL_MAX_DIM", "PRL_PAIRS_DIRECT",
                                                   "pattern_counts"],
        "sdcflow.kernels.linkage.probabilistic_linkage": ["PRL_MAX_CELLS",
                                                          "probabilistic_links"],
        "sdcflow.kernels.risk.interval_disclosure": ["interval_disclosure"],
    }
    assert sorted(linkage.__all__) == sorted(n for names in homes.values() for n in names)
    for module, names in homes.items():
        home = importlib.import_module(module)
        for name in names:
            assert getattr(linkage, name) is getattr(home, name)
