"""The studies behind the result tables, one module per command: `exploitability` (`jabba
exploit`: the heuristics' and CFR's exact exploitability), `search_exact` (`jabba
search-exact`), `exploit_known` (`jabba exploit-known`), `model_accuracy` (`jabba model
accuracy`), `advice_seat` (the hint seated at a tournament's table: benchmarks/advice_*.py).
They sit above the solvers, policies, hints and reports they measure."""
