"""Solving the Han Solo card game (`han_solo`): heuristics, abstraction keys, a compiled
external-sampling MCCFR, exact exploitability on reduced decks and a duplicate-deal
tournament (docs/han-solo.md "Solving")."""
