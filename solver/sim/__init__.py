"""The simulation core: one random generator, one sampler, one play-out loop."""
