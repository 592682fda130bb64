"""Privacy models: one class per ``<privacy>`` element of an anonbox config, with the element's
attributes as parameters (``attribute`` names a sensitive column).

Pass a list of them as ``anonymize(..., privacy=[...])``; a release satisfies all of them (or
suppresses the records that do not, within the suppression limit). They are enforced by the
lattice methods (Flash, OLA, BFS, Optimal); the toolbox's methods take ``k`` alone.
"""

from __future__ import annotations

import os
from typing import Dict, List, Optional, Union
from xml.sax.saxutils import quoteattr

__all__ = [
    "PrivacyModel",
    "KAnonymity",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "RecursiveCLDiversity",
    "TCloseness",
    "DeltaPresence",
    "KMap",
    "AverageRisk",
    "SampleUniqueness",
    "PopulationUniqueness",
    "DeltaDisclosure",
    "BetaLikeness",
    "DifferentialPrivacy",
]


def _text(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


class PrivacyModel:
    """A privacy model: the ``<privacy>`` element ``element`` with attributes."""

    element: str = ""

    def __init__(self, **attributes: object) -> None:
        self._attributes: Dict[str, object] = {
            k: v for k, v in attributes.items() if v is not None
        }

    @property
    def attribute(self) -> Optional[str]:
        """The sensitive column the model is about, if any."""
        a = self._attributes.get("attribute")
        return None if a is None else str(a)

    def to_xml(self) -> str:
        """The model as its ``<privacy>`` element."""
        attrs = "".join(
            f" {k}={quoteattr(_text(v))}" for k, v in self._attributes.items()
        )
        return f"<{self.element}{attrs}/>"

    def __repr__(self) -> str:
        args = ", ".join(f"{k.replace('-', '_')}={v!r}" for k, v in self._attributes.items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._attributes == other._attributes  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), tuple(sorted((k, _text(v)) for k, v in self._attributes.items()))))


class KAnonymity(PrivacyModel):
    """``<k-anonymity k=.../>``: every record shares its quasi-identifiers with k - 1 others."""

    element = "k-anonymity"

    def __init__(self, k: int) -> None:
        super().__init__(k=k)


class DistinctLDiversity(PrivacyModel):
    """``<distinct-l-diversity attribute=... l=.../>``: at least l distinct sensitive values
    per class (l a whole number)."""

    element = "distinct-l-diversity"

    def __init__(self, attribute: str, l: int) -> None:  # noqa: E741
        super().__init__(attribute=attribute, l=l)


class EntropyLDiversity(PrivacyModel):
    """``<entropy-l-diversity attribute=... l=.../>``: each class's sensitive values have an
    entropy of at least log(l)."""

    element = "entropy-l-diversity"

    def __init__(self, attribute: str, l: float) -> None:  # noqa: E741
        super().__init__(attribute=attribute, l=l)


class RecursiveCLDiversity(PrivacyModel):
    """``<recursive-cl-diversity attribute=... c=... l=.../>``: the most frequent value is
    rarer than c times the sum of the values from the l-th on."""

    element = "recursive-cl-diversity"

    def __init__(self, attribute: str, c: float, l: int) -> None:  # noqa: E741
        super().__init__(attribute=attribute, c=c, l=l)


class TCloseness(PrivacyModel):
    """``<t-closeness attribute=... t=... distance=.../>``: each class's distribution of the
    sensitive values is within t of the whole table's (``distance``: ``"equal"``,
    ``"ordered"`` or ``"hierarchical"``, which needs a hierarchy for the attribute)."""

    element = "t-closeness"

    def __init__(self, attribute: str, t: float, distance: str = "equal") -> None:
        super().__init__(attribute=attribute, t=t, distance=distance)


class DeltaPresence(PrivacyModel):
    """``<delta-presence dmin=... dmax=... subset=... | subset-index=.../>``: the data is the
    population and the research subset (a file of its rows, or a 0/1 column by index) is
    released; every class's share of subset records is within [dmin, dmax]."""

    element = "delta-presence"

    def __init__(
        self,
        dmin: float,
        dmax: float,
        subset: Optional[str] = None,
        subset_index: Optional[int] = None,
    ) -> None:
        super().__init__(
            dmin=dmin, dmax=dmax,
            subset=None if subset is None else os.path.abspath(os.fspath(subset)),
            **{"subset-index": subset_index},
        )


class KMap(PrivacyModel):
    """``<k-map k=... population=... | population-size=.../>``: every record looks like at
    least k people of the population (a region such as ``"usa"``, or a size)."""

    element = "k-map"

    def __init__(
        self,
        k: int,
        population: Optional[str] = None,
        population_size: Optional[int] = None,
        significance: Optional[float] = None,
        estimator: Optional[str] = None,
    ) -> None:
        super().__init__(
            k=k,
            population=population,
            **{"population-size": population_size},
            significance=significance,
            estimator=estimator,
        )


class AverageRisk(PrivacyModel):
    """``<average-risk threshold=.../>``: the average prosecutor risk is at most threshold."""

    element = "average-risk"

    def __init__(self, threshold: float) -> None:
        super().__init__(threshold=threshold)


class SampleUniqueness(PrivacyModel):
    """``<sample-uniqueness threshold=.../>``: at most this share of records is unique."""

    element = "sample-uniqueness"

    def __init__(self, threshold: float) -> None:
        super().__init__(threshold=threshold)


class PopulationUniqueness(PrivacyModel):
    """``<population-uniqueness threshold=... model=... population=.../>``: at most this share
    of the population is unique (``model``: ``"dankar"``, ``"pitman"``, ``"zayatz"``,
    ``"snb"``)."""

    element = "population-uniqueness"

    def __init__(
        self,
        threshold: float,
        model: str = "dankar",
        population: Optional[str] = None,
        population_size: Optional[int] = None,
    ) -> None:
        super().__init__(
            threshold=threshold,
            model=model,
            population=population,
            **{"population-size": population_size},
        )


class DeltaDisclosure(PrivacyModel):
    """``<delta-disclosure attribute=... delta=.../>``: within every class each sensitive value's
    frequency is within a factor 2^delta of the table's."""

    element = "delta-disclosure"

    def __init__(self, attribute: str, delta: float) -> None:
        super().__init__(attribute=attribute, delta=delta)


class BetaLikeness(PrivacyModel):
    """``<beta-likeness attribute=... beta=... enhanced=.../>``: no class makes a sensitive
    value more than (1 + beta) times as frequent as in the table."""

    element = "beta-likeness"

    def __init__(self, attribute: str, beta: float, enhanced: bool = False) -> None:
        super().__init__(attribute=attribute, beta=beta, enhanced=enhanced)


class DifferentialPrivacy(PrivacyModel):
    """``<differential-privacy epsilon=... delta=... steps=... generalization=... budget=.../>``:
    (epsilon, delta)-differential privacy by SafePub: a random sample of the records released
    under one transformation, every class of fewer than the derived k sampled records
    suppressed. ``steps``: a data-dependent search of that many steps (``budget`` of epsilon
    spent on it); ``generalization``: a data-independent degree (``low``, ``medium``,
    ``high``, ...). Pass ``suppression=1`` to ``anonymize``: the model suppresses what it
    must (any lower limit is refused). The sample and the search are random:
    ``anonbox.run(config, seed=N)`` reproduces a release."""

    element = "differential-privacy"

    def __init__(
        self,
        epsilon: float,
        delta: float,
        steps: Optional[int] = None,
        generalization: Optional[str] = None,
        budget: Optional[float] = None,
    ) -> None:
        super().__init__(
            epsilon=epsilon,
            delta=delta,
            steps=steps,
            generalization=generalization,
            budget=budget,
        )


#: Every model class by its element name.
BY_ELEMENT: Dict[str, type] = {
    c.element: c  # type: ignore[misc]
    for c in [
        KAnonymity, DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity, TCloseness,
        DeltaPresence, KMap, AverageRisk, SampleUniqueness, PopulationUniqueness,
        DeltaDisclosure, BetaLikeness, DifferentialPrivacy,
    ]
}


#: Attributes that name things (a column, a file, a distance, a region): kept as text.
_NAMES = frozenset(
    {"attribute", "distance", "subset", "model", "population", "generalization"}
)


def _value(key: str, text: str) -> object:
    """A config attribute's value as the model's constructor takes it: a whole number, a
    number, a flag, or (names and anything else) the text."""
    if key in _NAMES:
        return text
    if text in ("true", "false"):
        return text == "true"
    for parse in (int, float):
        try:
            return parse(text)
        except ValueError:
            pass
    return text


def from_element(element: str, attributes: Dict[str, str]) -> PrivacyModel:
    """The model of a ``<privacy>`` element read from a config: numbers and flags as Python
    values (``k="5"`` is ``KAnonymity(5)``), names as text."""
    cls = BY_ELEMENT.get(element)
    if cls is None:
        raise ValueError(f"unknown privacy model <{element}>")
    m = PrivacyModel.__new__(cls)
    PrivacyModel.__init__(m, **{k: _value(k, v) for k, v in attributes.items()})
    return m


Models = Union[PrivacyModel, List[PrivacyModel]]
