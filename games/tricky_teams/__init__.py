"""Tricky Teams rules engine (work in progress: the registry skips it until GAME exists)."""

# Until the engine lands, behave as if the package were absent so the registry skips it.
raise ModuleNotFoundError("games.tricky_teams engine not written yet", name="games.tricky_teams")
