"""Solvers: CFR, MCCFR and evaluation (see the issues that build on the engine)."""
