"""The Star Wars: Han Solo card game: its compiled rules (engine.py over layout.py), the
OpenSpiel game `han_solo` (game.py) and the match-level rulings (match.py). Importing this
package registers the game. Rulings: docs/RULES.md "Han Solo card game" (H1-H12)."""

from .game import Config, HanSoloGame, HanSoloState, parse_bounties  # noqa: F401
