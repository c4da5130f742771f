"""gbot's version, in one place (the package metadata reads it from here)."""

__version__ = "0.1.0"
