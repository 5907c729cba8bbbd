"""What a resume restores: recovery of the loaded messages, restored state, sidechains, processes."""
