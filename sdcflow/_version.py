"""The version of sdcflow (in every manifest and fingerprint; a module of its own so the
engine can read it without importing the package root, which imports the engine)."""

__version__ = "0.1.0"
