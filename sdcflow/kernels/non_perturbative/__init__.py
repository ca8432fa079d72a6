"""Non-perturbative kernels."""
