"""Writing sessions: the one writer, rewind points and rewind, fork and salvage."""
