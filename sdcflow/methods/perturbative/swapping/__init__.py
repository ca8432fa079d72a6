"""Swapping methods: values exchanged between records (rank swapping, targeted record
swapping of households, data shuffling); their kernels are in
:mod:`sdcflow.kernels.perturbative.swapping`."""
