"""Readers of benchmark data files."""
