"""Samplers that need matrix factorizations: multivariate_normal, orthogonal."""
from __future__ import annotations

__all__: list[str] = []
