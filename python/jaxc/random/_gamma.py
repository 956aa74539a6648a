"""Gamma and the samplers built on it: gamma, loggamma, beta, dirichlet, chisquare, t, f, generalized_normal, ball."""
from __future__ import annotations

__all__: list[str] = []
