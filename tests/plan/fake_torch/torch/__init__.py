"""A stand-in for torch with only what plan/build_extension.py uses: versions and the extension builder."""
import types

__version__ = "0.0.0+fake"
version = types.SimpleNamespace(cuda="13.0")
