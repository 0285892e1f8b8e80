"""Jabba's Palace: the compiled rules engine and its OpenSpiel game `jabbas_palace`.

Importing this package registers the game with pyspiel.
"""

from . import game  # noqa: F401  (registers "jabbas_palace")
from .cards import CHARACTERS, Agenda, character_id, parse_deck  # noqa: F401
from .game import JabbaPalaceGame, JabbaPalaceState, RoundView  # noqa: F401
