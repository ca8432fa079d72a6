"""Swapping kernels: rank swapping (:mod:`.rank_swap`), targeted record swapping
(:mod:`.record_swap`) and data shuffling (:mod:`.shuffling`)."""
