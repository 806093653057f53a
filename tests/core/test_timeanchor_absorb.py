"""The absorb dispatch table covers every token kind a point is made of, and nothing else."""

from __future__ import annotations

from core.timeanchor.absorb import _ABSORBERS
from core.timeanchor.grammar import POINT_KINDS
from core.timeanchor.patterns import KINDS


def test_every_point_kind_has_an_absorber() -> None:
    assert POINT_KINDS.issubset(_ABSORBERS)


def test_absorbers_only_name_real_token_kinds() -> None:
    assert set(_ABSORBERS) <= KINDS
