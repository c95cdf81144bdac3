"""Reductions -> core aten reductions (sum.dim_IntList, mean.dim, amax, var.correction...)."""

from __future__ import annotations
