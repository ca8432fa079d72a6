"""Information loss and utility kernels."""
