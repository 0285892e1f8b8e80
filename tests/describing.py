"""The summaries a person gives of a round (solver/hint/describe.py), for the tests."""

from solver.hint.describe import annotated_summary, person_summary  # noqa: F401
