"""Match play to the token goal (docs/RULES.md R14): per-round outcome distributions
(`outcomes`), match values by dynamic programming and the round utility table
(`value`), the standings checks (`standings`), and a duplicate-deal match harness
(`duel`). docs/match.md."""
