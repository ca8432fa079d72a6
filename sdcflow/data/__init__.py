"""The Dataset (a pandas DataFrame plus variable metadata), data I/O and shipped data sets."""

from .dataset import DEFAULT_TYPES, Dataset, Metadata, Variable, as_declared, storage_problems
from .io import BUILTIN_DATASETS, builtin_path, read_data, write_table
from .text import TEXT, text_column

__all__ = [
    "BUILTIN_DATASETS",
    "DEFAULT_TYPES",
    "TEXT",
    "Dataset",
    "Metadata",
    "Variable",
    "as_declared",
    "builtin_path",
    "read_data",
    "storage_problems",
    "text_column",
    "write_table",
]
