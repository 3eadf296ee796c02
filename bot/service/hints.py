"""A hint on request: what the AI's top level (``master``) would do next for the player who asks, shown
as their turn panel at that action's confirm step (its usual preview and picture, ready to Confirm),
with one sentence of why in the game's terms. Worked out off the event loop from the player's own view
(``bot.ai.analyse``), within a budget under the 3 s an interaction has; counted with the game, and the
final post says how many each player asked for. A game's opener may turn hints off (``/tiempo new
hints:False``)."""

from __future__ import annotations

import logging
import math
import statistics
from collections.abc import Awaitable, Callable, Mapping, Sequence

from rules import Action, Choose, EndTurn, Exchange, GameState, RuleError, Travel, apply, economy_change
from rules import events as ev

from ..ai import Alternative, Analysis, best_choice, resolve_pending
from ..play import Refusal, RefusalCode
from ..storage import GameRecord, HintCounts, Status
from ..texts import ecu_word, names_shown
from ..words import Name, Text, say
from .games import Games, find_seat, over_words, version_of
from .messages import Caller, Reply
from .steps import economy_words, hurts_words, path_to

log = logging.getLogger("tiempo.hints")

#: ``AISeats.analyse``: the master level's analysis for a seat, worked out off the event loop
Analyse = Callable[..., Awaitable[Analysis]]
#: ``Panels.show``: a player's panel at a path, with a note above it
Show = Callable[[Caller, int, str, Sequence[str], Text], Awaitable[Reply]]

#: the longest a hint thinks, in seconds: the interaction is answered (deferred, then edited) well within 3 s
HINT_BUDGET_S = 2.0


def hints_on(options: Mapping[str, object]) -> bool:
    """Whether a game allows hints: its ``hints`` option, on unless turned off."""
    return options.get("hints", True) is not False


def hints_note(game: GameRecord) -> Text | None:
    """The final post's word on the hints each player asked for (None when hints were off)."""
    if not hints_on(game.options):
        return None
    used = [say("{name} {n}", name=Name(s.name), n=game.hints_of(i))
            for i, s in enumerate(game.seats) if not s.ai_level]
    if not used:
        return None
    if not any(game.hints_of(i) for i in range(len(game.seats))):
        return say("💡 Nobody asked for a hint.")
    counts = used[0]
    for part in used[1:]:
        counts = say("{counts}, {part}", counts=counts, part=part)
    return say("💡 Hints asked for: {counts}.", counts=counts)


class Hints:
    """Answers a player's request for a hint (the panel's Hint button, ``/tiempo me hint``, ``hint``)."""

    def __init__(self, games: Games, analyse: Analyse, show: Show, *, budget_s: float = HINT_BUDGET_S,
                 iterations: int | None = None) -> None:
        self.games = games
        self.analyse = analyse
        self.show = show
        self.counts = HintCounts(games.storage.database)
        self.budget_s = budget_s
        #: a fixed number of play-outs instead of the budget (tests: the hint then depends only on the view)
        self.iterations = iterations

    async def hint(self, caller: Caller, game_id: int | None = None) -> Reply:
        """The caller's panel at the confirm step of what the master level would play now, with why.
        Refused when the caller does not play, the game is over or does not allow hints, or it is not
        the caller's turn (or question)."""
        game = await self.games.playing_here(caller, game_id)
        seat = find_seat(game, caller)
        if seat is None:
            raise Refusal(say("You are not playing in game #{id}: hints are for its players.", id=game.id),
                          RefusalCode.NOT_SEATED)
        if game.status is not Status.PLAYING:
            raise Refusal(say("{over} There is nothing left to hint at.", over=over_words(game)),
                          RefusalCode.GAME_OVER)
        if not hints_on(game.options):
            raise Refusal(say("Game #{id} is played without hints: its opener turned them off when opening it.",
                              id=game.id), RefusalCode.NOT_ALLOWED)
        state = self.games.state_of(game)
        if state.finished:
            raise Refusal(say("Game #{id} is over. There is nothing left to hint at.", id=game.id),
                          RefusalCode.GAME_OVER)
        if state.waiting_on != seat:
            waited = game.seats[state.waiting_on].name
            raise Refusal(say("A hint is for when the game waits on you; it waits on {name} now.", name=Name(waited)),
                          RefusalCode.NOT_YOUR_TURN)
        # the search's seed: the game and the position's count, never the game's own seed (which deals)
        seed = game.id * 1_000_003 + game.action_count
        analysis = await self.analyse(state, seat, seed=seed, budget_s=self.budget_s,
                                            iterations=self.iterations)
        try:  # the count is a courtesy: a busy database never costs the player their hint
            await self.counts.count(game.id, seat)
        except Exception as err:
            log.warning("game #%s: could not count a hint (%s)", game.id, err)
        action = analysis.best_action
        try:
            path = path_to(state, seat, action)
        except ValueError:  # (the panel leads to every legal action; should it not, the menu and the words)
            log.warning("game #%s: the panel does not lead to the hint %s", game.id, action)
            path = ()
        note = say("💡 {hint} {why}", hint=_headline(action), why=why_words(state, seat, analysis))
        return await self.show(caller, game.id, version_of(game), path, note)


def _headline(action: Action) -> Text:
    """The first words of a hint: what the master level would do (the panel below shows it)."""
    if isinstance(action, Choose):
        return say("The AI's top level would answer {cell}.", cell=str(action.cell))
    if isinstance(action, EndTurn):
        return say("The AI's top level would end your turn now.")
    return say("The AI's top level would play this next (shown below, ready to confirm).")


#: how many deals two plans must both have been played out on for the hint to compare their Ecus
AHEAD_DEALS = 3


def _played_out(plan: Alternative, j: int) -> bool:
    """Whether the plan's play-out on deal ``j`` ended (one that failed scores -1e9 and estimates 0)."""
    return j >= len(plan.scores) or plan.scores[j] > -1e8


def _ahead(analysis: Analysis) -> int | None:
    """How many Ecus more the hinted turn is expected to finish with than the next best turn the search
    played out, deal by deal on the deals both were played out on (the luck of the deal taken out), when
    that is at least 1 and clear of the noise (two standard errors), against every other turn played out
    on 3 deals or more, the runner-up among them; None otherwise (a plan played out on a few deals, or
    one as good, says nothing worth a number)."""
    chosen = analysis.best
    leads: list[tuple[float, float]] = []
    for k, other in enumerate(analysis.alternatives[1:]):
        diffs = [chosen.estimates[j] - other.estimates[j] for j in range(min(len(chosen.estimates),
                                                                               len(other.estimates)))
                 if _played_out(chosen, j) and _played_out(other, j)]
        if len(diffs) < AHEAD_DEALS:
            if k == 0:  # (the runner-up by gain, the likeliest next best, must be among those compared)
                return None
            continue
        leads.append((statistics.fmean(diffs), statistics.stdev(diffs) / math.sqrt(len(diffs))))
    if not leads:
        return None
    lead, error = min(leads)
    return round(lead) if lead >= 1 and lead > 2 * error else None


def why_words(state: GameState, seat: int, analysis: Analysis) -> Text:
    """One sentence of why the hinted action is good, in the game's terms: the income it secures and the
    domain it takes (``rules.action_economy``), the bonus it earns, whom it hurts, and by how much it
    beats the next best turn the search found when that is clear; for an action that changes no domain
    (travel, exchange, the end of the turn), what the turn it starts leaves the player."""
    action, best = analysis.best_action, analysis.best
    # (not the Ecus the search expects the player to finish with: a guess at the end of play-outs of a few
    # rounds, it swings from one action to the next; only a lead the same deals show clearly)
    ahead = _ahead(analysis)
    expect: Text | str = "" if ahead is None else say(
        "; the AI expects you to finish with about {ahead} {word} more than with the next best turn it found",
        ahead=ahead, word=ecu_word(ahead))
    try:
        played, events = apply(state, action)
        asks = None if played.pending is None else played.pending.decision.player  # (who answers its question)
        bonus = sum(e.amount for e in events if isinstance(e, ev.BonusPaid) and e.player == seat)  # (R28)
        # (the domain and the harms once its question is answered as the AI reckons, as the income below: on
        # the board in between, which pays no one, every domain there would read as lost, R78)
        told = list(events)
        change = economy_change(state, resolve_pending(played, best_choice, events=told)[0], told)
    except RuleError:
        change, asks, bonus = None, None, 0
    gained = economy_words(state, action, change) if change is not None else ""
    hurt = hurts_words(state, change, seat, within=True) if change is not None else ""
    income = best.income
    after = say("your two best boards (a pawn on each) would pay {income} {word} at income", income=income,
                word=ecu_word(income))
    if gained:
        gain, _, what = gained.partition(": ") if gained[0] in "+-" else ("", "", gained)
        if what.startswith("in "):  # (a domain it strengthens without changing who controls it)
            what = "adds to " + what[len("in "):]
        if asks is not None and what:  # (the income it brings waits on the answer: not the income before it)
            gain = ""
        if hurt and what.endswith(")") and not gain:  # one bracket: "(no one's; 💥 hurts Ben: …)"
            what, hurt = f"{what[:-1]}; {hurt})", ""
        # (the economy's and the harms' words name players: their names escaped where the front end has markup)
        reason = say("it {what}", what=names_shown(state, what)) if what else say("it brings {gain}", gain=gain)
        if what and gain:
            reason = say("{reason}, {gain}", reason=reason, gain=gain)
        if bonus:
            reason = say("{reason}, with a bonus of {n} {word} at once", reason=reason, n=bonus, word=ecu_word(bonus))
        if hurt:
            reason = say("{reason} ({hurt})", reason=reason, hurt=names_shown(state, hurt))
        if asks is not None:
            reason = (say("{reason}, then asks you a question; answered as the AI would, {after}",
                          reason=reason, after=after) if asks == seat
                      else say("{reason}, then asks {who} a question; answered as the AI would, {after}",
                               reason=reason, who=Name(state.players[asks].name), after=after))
        return say("Why: {reason}{expect}.", reason=reason, expect=expect)
    if isinstance(action, Exchange):  # (a plan stops at an exchange: what it draws is not known yet)
        return say("Why: the cards it draws should serve you better than those you give up, for what it costs"
                   "{expect}.", expect=expect)
    if isinstance(action, EndTurn) or (len(best.actions) <= 1 and not isinstance(action, (Choose, Travel))):
        if income:
            return say("Why: nothing more this turn is worth what it costs, and {after}{expect}.", after=after,
                       expect=expect)
        return say("Why: nothing more this turn is worth what it costs{expect}.", expect=expect)
    if isinstance(action, Choose):
        return say("Why: of the choices, it leaves you best placed: {after}{expect}.", after=after, expect=expect)
    if isinstance(action, Travel) and len(best.actions) > 1:
        return say("Why: it starts the best turn the AI found, {steps} actions long, after which {after}"
                   "{expect}.", steps=len(best.actions), after=after, expect=expect)
    return say("Why: after it, {after}{expect}.", after=after, expect=expect)

__all__ = ["HINT_BUDGET_S", "Hints", "hints_note", "hints_on", "why_words"]
