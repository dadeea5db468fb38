"""The `search` bot's policies: determinized Monte Carlo search per game."""

from __future__ import annotations

from bots.policy import Policy
from bots.trick_n_trouble_search import TrickNTroubleSearch
from bots.tricky_teams_search import TrickyTeamsSearch

SEARCH_POLICIES: dict[str, Policy] = {
    "tricky-teams": TrickyTeamsSearch(),
    "trick-n-trouble": TrickNTroubleSearch(),
}
