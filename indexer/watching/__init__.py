"""The watcher: filesystem events in, debounced re-index runs out, its state readable by other processes."""
