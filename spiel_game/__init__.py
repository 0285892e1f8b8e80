"""The compiled rules engine and its OpenSpiel games: `jabbas_palace` (Star Wars: Jabba's
Palace) and `love_letter` (classic Love Letter, 2019 edition).

Importing this package registers both games with pyspiel. `GAMES` is the one list of the
games, `load` the one loader, `ruleset(game).has_agendas` / `.variants` what a game's
variants are.
"""

from . import jit_cache

jit_cache.check()  # before any compiled function runs: no stale numba cache (jit_cache.py)

from . import game  # noqa: E402, F401  (registers "jabbas_palace" and "love_letter")
from .cards import (CHARACTERS, CLASSIC, GAMES, JABBAS_PALACE, RULESETS, Agenda,  # noqa: E402,F401
                    RuleSet, character_id, parse_deck, ruleset)
from .game import (EngineGame, EngineState, JabbaPalaceGame, LoveLetterGame,  # noqa: E402,F401
                   RoundView, load, load_parameters, variant)
from . import han_solo  # noqa: F401,E402  (registers "han_solo"; not in GAMES: docs/han-solo.md)
from . import sarlacc  # noqa: F401,E402  (registers "sarlaccs_pit"; docs/sarlaccs-pit.md)

# Every game this package registers with pyspiel; GAMES: those the jabba commands take.
REGISTERED = GAMES + ("han_solo", "sarlaccs_pit")
