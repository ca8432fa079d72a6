"""Masking methods: one module per method, each registering its plugin on import."""
