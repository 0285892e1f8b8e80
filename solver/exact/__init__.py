"""Exact solving on reduced decks: the whole game tree, CFR/CFR+/DCFR, best responses."""
