"""`jax.ad_checkpoint`: rematerialization (`checkpoint`, `remat`), its
policies and `checkpoint_name` (docs/autodiff.md, *Rematerialization*)."""
from ._toplevel import checkpoint, checkpoint_name, checkpoint_policies, remat

__all__ = ["checkpoint", "checkpoint_name", "checkpoint_policies", "remat"]
