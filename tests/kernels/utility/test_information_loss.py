"""sdcflow.kernels.utility.information_loss: the information loss kernels under their former
module name, each the very object of its own module."""

import importlib

from sdcflow.kernels.utility import information_loss


def test_every_public_name_is_the_object_of_its_new_home():
    homes = {
        "sdcflow.kernels.utility.categorical_information_loss": [
            "contingency_difference", "ctbil", "direct_distance", "entropy_losses",
            "posterior_from_data", "posterior_from_matrix"],
        "sdcflow.kernels.utility.continuous_information_loss": [
            "continuous_information_loss", "divergence", "il1s", "pca",
            "pca_divergences", "value_divergence"],
        "sdcflow.kernels.utility.probabilistic_information_loss": [
            "PIL_QUANTILES", "moments", "pil_probabilities", "probabilistic_information_loss",
            "quantile_variance"],
    }
    assert sorted(information_loss.__all__) == sorted(n for names in homes.values()
                                                      for n in names)
    for module, names in homes.items():
        home = importlib.import_module(module)
        for name in names:
            assert getattr(information_loss, name) is getattr(home, name)
