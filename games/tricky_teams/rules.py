"""Which cards a seat may play now, and what laying a card does to the trick.

Ruling 3, in order: (a) a binding Hypnotist wish; (b) otherwise the fog, the lead, challenge or
join, each falling back to "any card" when the seat cannot comply.  Always allowed in (b): a Fool,
a flag, and a Peasant once a Peasant is in the trick.  A flag is never allowed under (a).

The rules about one card are written as functions of the card; since a card is a small number,
each is also tabulated over every card at import (`cards.per_card`), and the sets of cards a rule
allows are bitmasks built from it (`cards.cards_where`).  The per-seat rules combine them.
"""

from __future__ import annotations

from functools import partial

from games.tricky_teams.cards import (
    DRUMMER,
    FOG_WITCH,
    FOOL,
    HYPNOTIST,
    PEASANT,
    RANK_OF,
    TEAM_BIT_OF,
    TEAM_OF,
    TEAMS,
    cards_where,
    per_card,
    teams_in,
)
from games.tricky_teams.state import Play, State
from games.tricky_teams.wire import Wish, WishInForce

# ---------------------------------------------------------------------------- ruling 3: legal plays


def fool_always_playable(card: int) -> bool:
    """The Fool (6) may ALWAYS be played, even against a Hypnotist's wish (special case 4 and 6)."""
    return RANK_OF[card] == FOOL


def flag_always_playable(card: int) -> bool:
    """A white flag may always be played, except against a binding wish (special case 0 and 4)."""
    return RANK_OF[card] == 0


def peasant_follows_peasant(card: int, peasant_out: bool) -> bool:
    """Once a 1 is in the trick, another 1 may always be played (not against a binding wish)."""
    return peasant_out and RANK_OF[card] == PEASANT


def challenges(card: int, team: str) -> bool:
    """Ruling 3b: with one team out, a card of another colour challenges it (a flag is no team)."""
    return TEAM_OF[card] is not None and TEAM_OF[card] != team


def joins(card: int, teams: tuple[str, ...]) -> bool:
    """Ruling 3b: with two or more teams out, a card of one of them joins."""
    return TEAM_OF[card] in teams


def complies(card: int, out: tuple[str, ...]) -> bool:
    """Ruling 3b: one team out, the card must challenge; two or more, it must join."""
    return challenges(card, out[0]) if len(out) == 1 else joins(card, out)


def free_in_basic_rules(card: int, peasant_out: bool) -> bool:
    """Ruling 3b: a Fool, a flag, and a 1 once a 1 is out may always be played (no wish binding)."""
    return (
        fool_always_playable(card) or flag_always_playable(card) or peasant_follows_peasant(card, peasant_out)
    )


# The sets these rules allow: the Fools; each team's cards; the cards that comply, by the set of
# teams out; the cards free in rule (b), without and with a 1 out.
FOOLS = cards_where(fool_always_playable)
TEAM_SET: dict[str, int] = {team: cards_where(partial(joins, teams=(team,))) for team in TEAMS}
COMPLYING: tuple[int, ...] = tuple(
    cards_where(partial(complies, out=teams_in(teams))) for teams in range(1 << len(TEAMS))
)
FREE: dict[bool, int] = {
    peasant_out: cards_where(partial(free_in_basic_rules, peasant_out=peasant_out))
    for peasant_out in (False, True)
}


def wished_team(wishes: list[WishInForce], seat: int) -> str | None:
    """The team a Hypnotist's wish demands from `seat` in this trick (a later wish replaced earlier ones)."""
    for wish in wishes:
        if wish["seat"] == seat:
            return wish["team"]
    return None


def hypnotist_wish_binds(hand: int, team: str) -> int:
    """Ruling 3a / 11: holding the wished team, play that team or a Fool (never a flag); else 0 (none)."""
    if hand & TEAM_SET[team]:
        return hand & (TEAM_SET[team] | FOOLS)
    return 0


def playable(state: State, seat: int) -> int:
    """Ruling 3: the cards `seat` may play now (a set; both flag bits when both flags are held).

    (a) A binding wish decides.  (b) The lead and any play once a face-down card is out are free
    (ruling 12); otherwise the cards that comply or are free, or the whole hand if none complies.
    """
    hand = state["hands"][seat]
    if state["wishes"]:
        team = wished_team(state["wishes"], seat)
        if team is not None:
            forced = hypnotist_wish_binds(hand, team)
            if forced:
                return forced
    out = state["out"]
    if not out or state["down"]:
        return hand
    complying = hand & COMPLYING[out]
    if not complying:
        return hand
    return complying | hand & FREE[state["peasant_out"]]


def why_not_playable(state: State, seat: int) -> str:
    """A human reason why a card `seat` holds is not a legal play now."""
    team = wished_team(state["wishes"], seat)
    if team is not None and hypnotist_wish_binds(state["hands"][seat], team):
        by = next(wish["by"] for wish in state["wishes"] if wish["seat"] == seat)
        return (
            f"hypnotist's wish binds: seat {by} wished {team} from you and you hold {team} (or play a Fool)"
        )
    out = teams_out(state["trick"])
    if len(out) == 1:
        return f"must challenge: only {out[0]} is out and you hold another team"
    return f"must join: {', '.join(out)} are out and you hold one of them"


# ---------------------------------------------------------------------------- laying a card


def has_no_back(card: int) -> bool:
    """Ruling 12: the Drummers (8s) have no card back: everyone sees them in a hand, none goes face down."""
    return RANK_OF[card] == DRUMMER


def goes_face_down(card: int, fog: bool) -> bool:
    """Ruling 12: in the fog a card is played face down, except a card with no back."""
    return fog and not has_no_back(card)


def team_put_out(card: int, face_down: bool) -> int:
    """Ruling 2: a face-up card puts its team out (a flag is no team): the team's bit, else 0."""
    return 0 if face_down else TEAM_BIT_OF[card]


def brings_fog(card: int) -> bool:
    """Ruling 12: a Fog Witch brings the fog: every later card of the trick goes face down."""
    return RANK_OF[card] == FOG_WITCH


def frees_peasants(card: int) -> bool:
    """Ruling 3b / 20: a 1 in the trick frees the next 1s, whether it lies face up or face down."""
    return RANK_OF[card] == PEASANT


# The rules above by card (and by the fog / face down); the cards with no back as a set.
NO_BACK = cards_where(has_no_back)
GOES_FACE_DOWN: dict[bool, tuple[bool, ...]] = {
    fog: per_card(partial(goes_face_down, fog=fog)) for fog in (False, True)
}
TEAM_PUT_OUT: dict[bool, tuple[int, ...]] = {
    face_down: per_card(partial(team_put_out, face_down=face_down)) for face_down in (False, True)
}
BRINGS_FOG = per_card(brings_fog)
FREES_PEASANTS = per_card(frees_peasants)


def teams_out(trick: list[Play]) -> list[str]:
    """Ruling 2: the teams out in the current trick, in the order they came out."""
    out: list[str] = []
    for play in trick:
        team = TEAM_OF[play["card"]]
        if team is not None and team_put_out(play["card"], play["face_down"]) and team not in out:
            out.append(team)
    return out


def may_wish(card: int) -> bool:
    """Ruling 11: only a Hypnotist (4) may wish."""
    return RANK_OF[card] == HYPNOTIST


def wish_targets(state: State) -> list[int]:
    """Ruling 11: a Hypnotist may wish from the seats still to play in this trick after its player."""
    seats = state["seats"]
    leader = state["leader"]
    assert leader is not None
    return [(leader + i) % seats for i in range(len(state["trick"]) + 1, seats)]


def wishes_after_play(wishes: list[WishInForce], seat: int, wish: Wish | None) -> list[WishInForce]:
    """Ruling 11: a played seat's wish is spent; a later wish for the same seat replaces the earlier one."""
    target = None if wish is None else wish["seat"]
    kept = [w for w in wishes if w["seat"] != seat and w["seat"] != target]
    if wish is not None:
        kept.append({"seat": wish["seat"], "team": wish["team"], "by": seat})
    return kept
