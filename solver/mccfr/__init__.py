"""External-sampling MCCFR compiled over the rules engine: numba intrinsics
(intrinsics.py), the hash table (table.py), the traversal kernel (kernel.py), checkpoints
(checkpoint.py), the solver that ties them together (solver.py), and long runs (train.py)."""
