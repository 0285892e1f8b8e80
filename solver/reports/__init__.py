"""Rendering of result records as CSV, Markdown and PNG, and the files they go to.

Records are computed elsewhere (solver/evaluation, solver/studies/exploitability.py,
solver/mccfr/train.py) and carry the provenance header (solver/provenance.py); these
modules only read them, so every rendering can be remade from its committed record.
"""
