"""Skill ratings: openskill's Plackett–Luce model (Weng and Lin's Bayesian approximation; MIT licence),
one rating per person and server, updated by every finished game of two or more people with no AI seat.

Why openskill: it rates games of any number of players with ties in one step, as Khronos needs (2 to 5
seats, tied Ecus share a place, A36); it is MIT-licensed, typed, kept up to date, and needs nothing
else; TrueSkill's name and method are licence-restricted. Plackett–Luce is its default model, the one
fitted to a ranking of several players.

A player's *rating* is the conservative estimate mu − 3σ (the model believes the skill is above it
with 99.7% confidence), shown as ``1000 + 40 × (mu − 3σ)``, rounded, never below 0: a newcomer shows
1000 (mu 25, σ 25/3), and the number grows as games make the model surer, so it rewards both playing
well and playing often. The model's mu and sigma are stored as well, so the number's scale can change
without losing anything, and ``tiempo-bot ratings --rebuild`` replays every rated game in order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from openskill.models import PlackettLuce

#: the model (its defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300)
MODEL: Final = PlackettLuce()
#: the number shown: BASE + SCALE × (mu − 3σ)
BASE: Final = 1000
SCALE: Final = 40


def shown(mu: float, sigma: float) -> int:
    """The rating shown for a skill of ``mu`` and ``sigma``: conservative (mu − 3σ), in a friendly range."""
    return max(0, round(BASE + SCALE * (mu - 3 * sigma)))


#: the rating a person shows before their first rated game
FIRST: Final = shown(MODEL.mu, MODEL.sigma)


def rate(before: Mapping[int, tuple[float, float] | None], places: Sequence[tuple[int, int]]
         ) -> dict[int, tuple[float, float]]:
    """Each person's (mu, sigma) after a game in which they finished at ``places`` ((person, place), 1 the
    best, tied people sharing a place), given what they had ``before`` (None: their first rated game)."""
    teams = []
    for user_id, _ in places:
        had = before.get(user_id)
        rating = MODEL.rating(name=str(user_id)) if had is None else MODEL.rating(mu=had[0], sigma=had[1],
                                                                                  name=str(user_id))
        teams.append([rating])
    after = MODEL.rate(teams, ranks=[float(place) for _, place in places])
    return {user_id: (team[0].mu, team[0].sigma) for (user_id, _), team in zip(places, after, strict=True)}
