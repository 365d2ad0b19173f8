"""The package version, a leaf every layer may import (model files record it)."""

__version__ = "0.1.0"
