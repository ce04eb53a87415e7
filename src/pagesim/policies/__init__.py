"""Page replacement policies, one module each, all through the cache_ext-style interface."""

from pagesim.policies.base import Policy
from pagesim.policies.registry import (
    BUILTIN,
    UnknownPolicyError,
    make_policy,
    policy_class,
    policy_names,
)

__all__ = ["BUILTIN", "Policy", "UnknownPolicyError", "make_policy", "policy_class", "policy_names"]
