"""Playing against the solver: one game-session mechanism for the terminal (`jabba play`)
and the web app (`jabba serve`): `session` (a seeded round or match over the engine, the
seat's view), `opponents` (who plays the other seats), `coach` (the hint's verdict on each
play), `log` (the replayable JSON-lines log).

The search budgets (exact iterations, so a seed gives the same game and the same verdicts
on any machine), here so the command line and the web app read them without importing
the engine:"""

OPPONENT_SEARCH_ITERATIONS = 32  # `--against search`, per decision (about 0.3 s)
COACH_SEARCH_ITERATIONS = 16  # the coach's hint, per coached play
