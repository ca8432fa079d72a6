"""The Dataset (a pandas DataFrame plus variable metadata), data I/O and shipped data sets."""

from .dataset import DEFAULT_TYPES, Dataset, Metadata, Variable
from .io import BUILTIN_DATASETS, builtin_path, read_data, write_table

__all__ = [
    "BUILTIN_DATASETS",
    "DEFAULT_TYPES",
    "Dataset",
    "Metadata",
    "Variable",
    "builtin_path",
    "read_data",
    "write_table",
]
