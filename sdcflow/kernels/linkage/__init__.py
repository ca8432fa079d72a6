"""Record linkage kernels."""
