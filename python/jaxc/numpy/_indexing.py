"""(in progress)"""
__all__: list[str] = []
