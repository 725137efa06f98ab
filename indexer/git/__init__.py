"""Reading git: the one git runner, objects and blobs, history, symbol diffs, the staged index, repository state."""
