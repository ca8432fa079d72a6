"""sdcflow.kernels.utility.utility: the clustering agreement and propensity kernels under
their former module name, each the very object of its own module."""

import importlib

from sdcflow.kernels.utility import utility


def test_every_public_name_is_the_object_of_its_new_home():
    homes = {
        "sdcflow.kernels.utility.kmeans": ["SAMPLE", "kmeans", "kmeans_plus_plus", "lloyd"],
        "sdcflow.kernels.utility.logistic_regression": ["logistic_fit"],
        "sdcflow.kernels.utility.partition_agreement": ["contingency", "partition_agreement"],
        "sdcflow.kernels.utility.propensity": ["main_effects", "product_terms",
                                               "propensity_utility"],
    }
    assert sorted(utility.__all__) == sorted(n for names in homes.values() for n in names)
    for module, names in homes.items():
        home = importlib.import_module(module)
        for name in names:
            assert getattr(utility, name) is getattr(home, name)
