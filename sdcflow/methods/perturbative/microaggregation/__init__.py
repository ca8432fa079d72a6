"""Microaggregation methods: groups of k or more similar records share one
representative (numeric, mixed with a Gower distance, nominal by their semantics, users
of a query log); their kernels are in :mod:`sdcflow.kernels.perturbative.microaggregation`."""
