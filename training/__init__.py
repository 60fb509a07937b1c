"""Self-play training, evaluation and the ``chuanma`` command line."""
