"""Numeric complementarity problems: the MCP type and compilation from Pyomo models."""

from contactmodel.mcp.types import MCP, natural_residual

__all__ = ["MCP", "natural_residual"]
