"""File checkpoints: the index, diffs, rebuilds, restores, eviction, side-by-side rows."""
