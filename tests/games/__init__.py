"""Rules-engine tests (pure, no Redis)."""
