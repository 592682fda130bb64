"""anonbox: anonymize a pandas, polars or Arrow table in one call.

>>> import anonbox
>>> result = anonbox.anonymize(df, quasi_identifiers={"age": anonbox.hierarchy.intervals(
...     widths=[5, 10, 20]), "zip": anonbox.hierarchy.mask()}, k=5, suppression=0.02)
>>> result.data            # the release, the same type as df
>>> result.report          # the JSON report, a dict
>>> result                 # in Jupyter: the HTML report

The engine is anonbox's (Rust): the same search and release as the command line ``anonbox``,
ARX-compatible optima, the UT Dallas toolbox's methods. Errors are :class:`ConfigError` (bad
arguments: nothing was read) and :class:`DataError` (the data), both :class:`Error`.
"""

from . import hierarchy
from ._api import Proposal, Result, anonymize, audit, init, run
from ._native import ConfigError, DataError, Error
from ._native import version as _version
from .models import (
    AverageRisk,
    BetaLikeness,
    DeltaDisclosure,
    DeltaPresence,
    DifferentialPrivacy,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    KMap,
    PopulationUniqueness,
    PrivacyModel,
    RecursiveCLDiversity,
    SampleUniqueness,
    TCloseness,
)

__version__ = _version()

__all__ = [
    "anonymize", "run", "audit", "init", "Result", "Proposal", "hierarchy",
    "Error", "ConfigError", "DataError", "PrivacyModel", "KAnonymity",
    "DistinctLDiversity", "EntropyLDiversity", "RecursiveCLDiversity", "TCloseness",
    "DeltaPresence", "KMap", "AverageRisk", "SampleUniqueness", "PopulationUniqueness",
    "DeltaDisclosure", "BetaLikeness", "DifferentialPrivacy",
]
