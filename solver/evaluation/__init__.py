"""Evaluation on the full game: tournaments, local best response, the report."""
