"""One transcript file: records decoded from it, the chain rebuilt, what the loader returns, the one writer."""
