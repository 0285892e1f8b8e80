"""External-sampling MCCFR compiled over the rules engine, and its training loop."""
