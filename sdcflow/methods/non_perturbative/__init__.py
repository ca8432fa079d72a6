"""Non-perturbative methods."""
