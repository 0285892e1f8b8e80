"""The compiled rules engine and its OpenSpiel games: `jabbas_palace` (Star Wars: Jabba's
Palace) and `love_letter` (classic Love Letter, 2019 edition).

Importing this package registers both games with pyspiel.
"""

from . import game  # noqa: F401  (registers "jabbas_palace" and "love_letter")
from .cards import CHARACTERS, CLASSIC, JABBAS_PALACE, Agenda, character_id, parse_deck  # noqa: F401
from .game import EngineGame, EngineState, JabbaPalaceGame, LoveLetterGame, RoundView  # noqa: F401
