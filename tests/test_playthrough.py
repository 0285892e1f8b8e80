"""Golden playthrough: OpenSpiel's generator re-run on the stored action sequence.

Regenerate after an intended change of strings, tensors or rules with
`python tests/test_playthrough.py --regenerate`, and review the diff.
"""

from __future__ import annotations

import os
import sys

from absl import flags
from open_spiel.python.algorithms import generate_playthrough

import spiel_game  # noqa: F401  (registers the game)

GOLDEN = os.path.join(os.path.dirname(__file__), "playthroughs",
                      "jabbas_palace_medium.txt")
GAME_STRING = "jabbas_palace(deck=medium,agenda=jabbas_court)"
SEED = 28  # a round in which R2-D2 and Boba Fett are played

if not flags.FLAGS.is_parsed():
    flags.FLAGS.mark_as_parsed()  # the generator reads absl flags; use their defaults


def test_playthrough_matches_golden_file():
    original, regenerated = generate_playthrough.replay(GOLDEN)
    assert regenerated == original


if __name__ == "__main__" and "--regenerate" in sys.argv:
    text = generate_playthrough.playthrough(GAME_STRING, None, seed=SEED)
    os.makedirs(os.path.dirname(GOLDEN), exist_ok=True)
    with open(GOLDEN + ".tmp", "w") as f:
        f.write(text)
    os.replace(GOLDEN + ".tmp", GOLDEN)
    print(f"wrote {GOLDEN}")
