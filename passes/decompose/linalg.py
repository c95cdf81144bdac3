"""Matrix products -> core aten (mm, bmm, addmm and views)."""

from __future__ import annotations
