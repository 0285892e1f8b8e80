"""Opponent models: a known or fitted mixture over the policy bank's policies for one seat
(docs/opponents.md). `model` resolves `--opponent SEAT=MODEL` and gives the mixture's
probabilities; `fit` fits the mixture to play logs; `sample` writes logs of a known policy."""
