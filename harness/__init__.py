"""Tournament harness: scheduling, RQ jobs, match runner, bot client and ratings."""
