"""Bot SDK and the bundled bots, each a small HTTP service."""
