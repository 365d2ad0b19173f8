"""scikit-learn facades: the only place where the stages (binarise, encode, solve, decode) are
chained. Each estimator lives in its own module; names are imported lazily.

Besides the estimators, this package publishes what the command line needs from the layers
below it (the CLI imports nothing from ``trees/`` or a private module): how a
``binarizer="..."`` string and the labels are read (``BINARIZERS``, ``binarizer_to_fit``,
``encode_labels``) and the kernel cache's compile-ahead switches (``compile_kernels_early``:
start compiling the exact searches' kernels in the background now; ``warm_up_kernels``:
compile them in the foreground, ``{kernel group: seconds}``).
"""

from __future__ import annotations

from importlib import import_module

_PUBLIC = {
    "MinimumPureTreeClassifier": ("occamlearn.estimators.mpdt", "MinimumPureTreeClassifier"),
    "MaxAccuracyTreeClassifier": ("occamlearn.estimators.dtmax", "MaxAccuracyTreeClassifier"),
    "DecisionListClassifier": ("occamlearn.estimators.decision_list", "DecisionListClassifier"),
    "BINARIZERS": ("occamlearn.estimators._base", "BINARIZERS"),
    "binarizer_to_fit": ("occamlearn.estimators._base", "binarizer_to_fit"),
    "encode_labels": ("occamlearn.estimators._inputs", "encode_labels"),
    "compile_kernels_early": ("occamlearn.trees.compiling.kernel_cache", "compile_early"),
    "warm_up_kernels": ("occamlearn.trees.compiling.kernel_cache", "warm_up_all"),
    "KERNEL_COMPILE_ALL_SECONDS": ("occamlearn.trees.compiling.kernel_cache",
                                   "COMPILE_ALL_SECONDS"),
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    try:
        module, attribute = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    return getattr(import_module(module), attribute)
