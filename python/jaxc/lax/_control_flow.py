"""Structured control flow (filled in by the control-flow work)."""
__all__: list[str] = []
