"""Information abstraction: compiled keys of what the acting player has seen."""
