"""The `search` bot's policies: determinized Monte Carlo search per game."""

from __future__ import annotations

from bots.policy import Policy
from bots.trick_n_trouble_search import TrickNTroubleSearch
from bots.tricky_teams_search import TrickyTeamsSearch
from games.trick_n_trouble import GAME as TRICK_N_TROUBLE
from games.tricky_teams import GAME as TRICKY_TEAMS

SEARCH_POLICIES: dict[str, Policy] = {
    TRICKY_TEAMS.name: TrickyTeamsSearch(),
    TRICK_N_TROUBLE.name: TrickNTroubleSearch(),
}
