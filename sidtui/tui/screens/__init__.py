"""One screen per module, each with its .tcss stylesheet beside it."""
