"""The simulation engine: one compiled loop per policy over a trace."""

from pagesim.engine.result import Result
from pagesim.engine.simulate import PolicyCompileWarning, PolicyError, simulate

__all__ = ["PolicyCompileWarning", "PolicyError", "Result", "simulate"]
