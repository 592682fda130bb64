"""Progress of a run: the native module calls ``callback(phase, position, length, message)``
on the caller's thread whenever the run's current bar changed (phases ``load``: bytes read,
``search``: transformations checked, ``write``: rows written; ``length`` None for a phase
without a known length). ``progress=True`` shows them as tqdm bars when tqdm is installed."""

from __future__ import annotations

from typing import Any, Callable, Optional

Callback = Callable[[str, int, Optional[int], str], None]

UNITS = {"load": "B", "search": "checks", "write": "rows"}


class Tqdm:
    """One tqdm bar per phase (tqdm.auto: a widget in Jupyter, text on a terminal)."""

    def __init__(self) -> None:
        from tqdm.auto import tqdm

        self._tqdm = tqdm
        self._bar: Any = None
        self._phase: Optional[str] = None

    def __call__(self, phase: str, position: int, length: Optional[int], message: str) -> None:
        if phase != self._phase:
            self.close()
            self._phase = phase
            self._bar = self._tqdm(
                total=length, desc=phase, unit=UNITS.get(phase, "it"),
                unit_scale=phase == "load", leave=False,
            )
        bar = self._bar
        if length is not None and bar.total != length:
            bar.total = length
        bar.update(position - bar.n)
        if message:
            bar.set_postfix_str(message, refresh=False)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def callback(progress: Any) -> Optional[Callback]:
    """The callback for ``anonymize(progress=...)``: a callable as it is, True a tqdm bar
    (nothing when tqdm is not installed), None or False nothing."""
    if progress is None or progress is False:
        return None
    if progress is True:
        try:
            return Tqdm()
        except ImportError:
            return None
    if callable(progress):
        return progress
    raise TypeError("progress: give True (a tqdm bar), a callable or None")
