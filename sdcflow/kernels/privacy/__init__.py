"""Syntactic privacy models (l-diversity, t-closeness, delta-presence, beta-likeness,
re-identification risk) evaluated per equivalence class, for measures and for the search
of a transformation that satisfies them."""
