"""Samplers that transform uniform or normal draws in closed form: exponential, laplace, logistic, cauchy, pareto, rayleigh, maxwell, double_sided_maxwell, weibull_min, rademacher, lognormal, triangular, wald."""
from __future__ import annotations

__all__: list[str] = []
