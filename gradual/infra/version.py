"""The package's version (pyproject.toml gives the same)."""

__version__ = "0.1.0"
