"""Choosing among items: gumbel, categorical, choice, permutation."""
from __future__ import annotations

__all__: list[str] = []
