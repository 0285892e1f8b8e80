"""The studies behind the result tables, one module per command: `exploitability` (`jabba
exploit`: the heuristics' and CFR's exact exploitability), `search_exact` (`jabba
search-exact`), `exploit_known` (`jabba exploit-known`), `model_accuracy` (`jabba model
accuracy`). They sit above the solvers, policies and reports they measure."""
