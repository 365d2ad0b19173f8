"""Binary matrix -> WCNF and back: the MPDT Partial MaxSAT encoding (Alcázar et al., Sec. 4,
eqs. 1-26 with the gap and typos fixed) and the greedy size bounds that feed it."""

from __future__ import annotations

from importlib import import_module

_PUBLIC = {
    "encode_mpdt": "occamlearn.encode.mpdt",
    "MPDTEncoding": "occamlearn.encode.mpdt",
    "greedy_upper_bound": "occamlearn.encode.bounds",
}

__all__ = ["MPDTEncoding", "encode_mpdt", "greedy_upper_bound"]


def __getattr__(name: str):
    try:
        module = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    return getattr(import_module(module), name)
