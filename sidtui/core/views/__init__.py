"""What the CLI and the app show: the session view, its ``show --json`` rows, listings, checks."""
