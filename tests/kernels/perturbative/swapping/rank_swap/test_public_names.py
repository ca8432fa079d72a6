"""sdcflow.kernels.perturbative.swapping.rank_swap: the package offers the names of the former
module, each the very object of its own module."""

import importlib

from sdcflow.kernels.perturbative.swapping import rank_swap


def test_every_public_name_is_the_object_of_its_module():
    homes = {
        "sdcflow.kernels.perturbative.swapping.rank_swap.partners": ["VARIANTS", "rank_window",
                                                            "swap_partners"],
        "sdcflow.kernels.perturbative.swapping.rank_swap.ranked_values": ["apply_rank_swaps",
                                                                 "rank_order", "rank_swap"],
    }
    assert sorted(rank_swap.__all__) == sorted(n for names in homes.values() for n in names)
    for module, names in homes.items():
        home = importlib.import_module(module)
        for name in names:
            assert getattr(rank_swap, name) is getattr(home, name)
