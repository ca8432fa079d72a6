"""Information loss and utility measures."""
