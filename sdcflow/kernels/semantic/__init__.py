"""Semantic kernels: taxonomies of categories, semantic distances, and the masking that
uses them."""
