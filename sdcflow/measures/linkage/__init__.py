"""Record linkage measures."""
