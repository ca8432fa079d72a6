"""Methods for documents: sanitisation of free text."""
