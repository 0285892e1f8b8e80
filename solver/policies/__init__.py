"""Policies: heuristics, their compiled twins, and table policies read from files."""
