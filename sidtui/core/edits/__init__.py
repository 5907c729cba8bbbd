"""Changes to sessions: rewind points and rewind, branch switches, fork and salvage."""
