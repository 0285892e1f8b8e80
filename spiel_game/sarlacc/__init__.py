"""Star Wars: Return of the Jedi – Battle at Sarlacc's Pit: the board as data (board.py,
boards/), its compiled rules (engine.py over layout.py) and the OpenSpiel game
`sarlaccs_pit` (game.py). Importing this package registers the game. Rulings: docs/RULES.md
"Battle at Sarlacc's Pit" (S1-S13)."""

from .board import Board, BoardError, check_board, load_board  # noqa: F401
from .game import Config, SarlaccGame, SarlaccState  # noqa: F401
