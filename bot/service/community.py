"""Between games and after them: the list of one's games in play, profiles, ratings and leaderboards.

A finished game is *recorded* once its last action is stored (``record_finished``, which the Herald
calls after the commit): a result per seat, with what the seat did in it (``stats``), and, when two or
more people played it with no AI seat, the change of their ratings on that server (``ratings``), all in
one transaction of ``bot.storage.community``. The final post shows the same change, worked out from
the ratings before the game (``final_lines``). ``Community.catch_up`` records what a crash left
unrecorded; ``Community.rebuild`` (``tiempo-bot ratings --rebuild``) recomputes every rating from the
stored results, in the order the games finished, so that a change of the model never loses history.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

from rules import Action, GameState
from rules import events as ev

from ..play import Refusal
from ..storage import GameRecord, Status
from ..storage.community import PlayerRecords, RatingChange, RatingRecord, ResultRecord, Totals
from ..texts import ecu_word, ranking
from ..words import Command, Mention, Name, Part, Place, Strong, Text, lines, listed, say, text
from .games import Games, find_seat, is_ai
from .messages import Caller, Reply
from .ratings import FIRST, rate, shown
from .stats import SeatStats, describe_stats, game_stats

log = logging.getLogger("tiempo.community")

#: players on a page of the leaderboard; games in a profile's list of the last ones
PAGE = 10
LAST_GAMES = 5
#: Ages as the profile names them, in the order of the results' columns
AGES = ("Might", "Faith", "Reason")


def is_rated(game: GameRecord) -> bool:
    """Whether a game counts for the ratings: two or more people, each in one seat, and no AI seat."""
    people = [s.user_id for s in game.seats if not is_ai(s)]
    return len(people) >= 2 and len(people) == len(game.seats) == len(set(people))


async def stats_of(games: Games, game: GameRecord, last: Sequence[ev.Event] = ()) -> list[SeatStats]:
    """Each seat's statistics of ``game`` from its stored history; ``last``: the events of its last
    action when that is not stored yet (the final post is made before the commit)."""
    h = await games.history(game)
    history: list[tuple[Action | None, Sequence[ev.Event]]] = [(action, events) for _, action, events in h.actions]
    if h.seq < game.action_count and last:
        history.append((None, last))
    return game_stats(games.first_state(game), history)


def results_of(game: GameRecord, state: GameState, stats: Sequence[SeatStats]) -> list[ResultRecord]:
    """A result per seat of the finished ``game`` (its final position ``state``)."""
    places = {seat: place for place, seat, _ in ranking(state)}
    rated = is_rated(game)
    return [ResultRecord(
        game_id=game.id, seat=i, guild_id=game.guild_id, channel_id=game.channel_id, user_id=seat.user_id,
        name=seat.name, ai=is_ai(seat), players=len(game.seats), place=places[i], ecus=state.players[i].ecus,
        won=i in state.winners, rated=rated, finished_at=game.updated_at, ripples=s.ripples,
        paradoxes=s.paradoxes, cards=s.cards, built_might=s.built[0], built_faith=s.built[1],
        built_reason=s.built[2], income_might=s.income[0], income_faith=s.income[1], income_reason=s.income[2])
        for i, (seat, s) in enumerate(zip(game.seats, stats, strict=True))]


def rating_update(results: Sequence[ResultRecord], before: Mapping[int, RatingRecord | None]
                  ) -> tuple[list[RatingChange], list[RatingRecord]]:
    """The change a rated game's ``results`` make to its people's ratings, given those ``before`` it."""
    first = results[0]
    had = {u: (r.mu, r.sigma) if r is not None else None for u, r in before.items()}
    after = rate(had, [(r.user_id, r.place) for r in results])
    changes, ratings = [], []
    for r in results:
        mu, sigma = after[r.user_id]
        old = before.get(r.user_id)
        changes.append(RatingChange(first.game_id, r.user_id, first.guild_id, old.rating if old else FIRST,
                                    shown(mu, sigma), mu, sigma))
        ratings.append(RatingRecord(first.guild_id, r.user_id, r.name, mu, sigma, shown(mu, sigma),
                                    (old.games if old else 0) + 1, r.finished_at))
    return changes, ratings


async def record_finished(games: Games, game: GameRecord) -> bool:
    """Record the finished ``game`` (as stored after its last action): its results and, if it is rated,
    its change of the ratings. False if it was recorded already or is not finished."""
    if game.status is not Status.FINISHED:
        return False
    records = PlayerRecords(games.storage.database)
    if await records.is_recorded(game.id):
        return False
    results = results_of(game, games.state_of(game), await stats_of(games, game))
    return await records.record_game(results, (lambda before: rating_update(results, before))
                                      if is_rated(game) else None)


async def final_lines(games: Games, game: GameRecord, state: GameState, events: Sequence[ev.Event]) -> list[Text]:
    """What the final post adds to the ranking: each player's statistics of the game, and the change of
    the people's ratings (or why the game is not rated). ``game`` is the game after its last action,
    which is not stored yet; the change is worked out from the ratings now stored, as
    ``record_finished`` will store it."""
    stats = await stats_of(games, game, events)
    out: list[Text] = describe_stats(state, stats)
    if is_rated(game):
        results = results_of(game, state, stats)
        had = await PlayerRecords(games.storage.database).ratings_of(game.guild_id, [r.user_id for r in results])
        changes, _ = rating_update(results, {r.user_id: had.get(r.user_id) for r in results})
        by_user = {c.user_id: c for c in changes}
        out.append(say("📈 Ratings: {list}.", list=listed(
            text(Name(r.name), f" {by_user[r.user_id].rating_after} ({_signed(by_user[r.user_id])})")
            for r in results)))
        if any(had.get(r.user_id) is None or had[r.user_id].games < 3 for r in results):
            out.append(say("(A rating is shown on the safe side: it rises as the games show more of a player, so "
                           "early games can raise everyone's.)"))
    elif any(is_ai(s) for s in game.seats):
        out.append(say("This game is not rated: an AI player took part."))
    return out


def _signed(change: RatingChange) -> str:
    d = change.rating_after - change.rating_before
    return f"+{d}" if d > 0 else f"−{-d}" if d < 0 else "±0"


def _date(at: float) -> str:
    return time.strftime("%d %b %Y", time.gmtime(at))


def _ordinal(n: int) -> str:
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n if n < 20 else n % 10, 'th') }"


def _left(seconds: float) -> str:
    """``2 h 05 min left``, ``4 min left``, ``time is up``."""
    if seconds <= 0:
        return "time is up"
    minutes = math.ceil(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min left" if minutes >= 60 else f"{minutes} min left"


def _result_line(r: ResultRecord) -> Text:
    return say("#{id} in {place}, {date}: {rank} of {players}, {ecus} {word}{won}", id=r.game_id,
               place=Place(r.guild_id, r.channel_id), date=_date(r.finished_at), rank=_ordinal(r.place),
               players=r.players, ecus=r.ecus, word=ecu_word(r.ecus), won=" 🏆" if r.won else "")


class Community:
    """Profiles, ratings, leaderboards and the list of one's games: the caller's commands, and the
    recording of finished games."""

    def __init__(self, games: Games, clock: Callable[[], float] = time.time) -> None:
        self.games = games
        self.clock = clock
        self.records = PlayerRecords(games.storage.database)

    # -- my games ---------------------------------------------------------------------------------

    async def games_of(self, caller: Caller) -> Reply:
        """The caller's games in play on every server and channel this bot serves, those waiting on them
        first, then by deadline: where, the round, whose turn, the time left. Works anywhere (a DM too)."""
        found = []
        for game in await self.records.playing(caller.user_id):
            state = self.games.state_of(game)
            mine = find_seat(game, caller)
            waiting = game.seats[state.waiting_on]
            if state.waiting_on == mine:
                turn: Text | Part = Strong("your answer is awaited" if state.active != mine else "your turn")
            else:
                turn = Name(waiting.name) + (" (AI) is thinking" if is_ai(waiting) else "'s turn")
            line = say("#{id} in {place}: round {round} of 7, {turn}", id=game.id,
                       place=Place(game.guild_id, game.channel_id), round=state.round, turn=turn)
            if game.turn_deadline is not None:
                line += f" ({_left(game.turn_deadline - self.clock())})"
            deadline = game.turn_deadline if game.turn_deadline is not None else math.inf
            found.append((state.waiting_on != mine, deadline, game.id, line))
        if not found:
            return Reply(say("You are not playing any game right now. Open one with {new}, or join one with {join}.",
                             new=Command("new"), join=Command("join")))
        found.sort(key=lambda f: f[:3])
        yours = sum(1 for f in found if not f[0])
        head = say("{games} — {yours} waiting on you:", games=Strong(f"Your games in play ({len(found)})"),
                   yours=yours)
        return Reply(lines([head, *(f[3] for f in found)]))

    # -- profiles ---------------------------------------------------------------------------------

    async def profile(self, caller: Caller, player_id: int | None = None, *, everywhere: bool = False,
                      player_name: str | None = None) -> Reply:
        """A person's finished games on this server (``everywhere``: on every server, for oneself only;
        always so in a direct message): played, won, average Ecus, best game, favourite Age, ripples and
        paradoxes, the rating here and the last five games. Refusal: another's profile across servers or
        from a DM, or a person with no finished game (here)."""
        target = caller.user_id if player_id is None else player_id
        own = target == caller.user_id
        if not own and (everywhere or not caller.guild_id):
            raise Refusal(say("Only your own profile is shown across servers; ask in a channel of the server "
                              "for another player's ({profile}).", profile=Command("profile", "player:")))
        everywhere = everywhere or not caller.guild_id
        guild = None if everywhere else caller.guild_id
        totals = await self.records.totals(target, guild)
        recent = await self.records.recent(target, guild, limit=LAST_GAMES)
        named = recent or (await self.records.recent(target, None, limit=1) if guild is not None else [])
        name = named[0].name if named else player_name or (caller.name if own else "This player")
        who: Part = Name(name) if own else Mention(target, name)
        if totals is None:
            raise Refusal(await self._no_profile(target, own, who))
        rows: list[Text | Part] = [Strong(say("{name} — {where}", name=Name(name),
                                              where="every server" if everywhere else "this server"))]
        if guild is not None:
            rated = await self.records.rating(guild, target)
            if rated is not None:
                r, place = rated
                rows.append(say("Rating {rating}, {place} of {of} on this server ({n} rated {games}).",
                                rating=r.rating, place=_ordinal(place), of=await self.records.rated_players(guild),
                                n=r.games, games="game" if r.games == 1 else "games"))
        rows += _totals_lines(totals)
        best = await self.records.best(target, guild)
        if best is not None:
            rows.append(text("Best game: ", _result_line(best)))
        rows.append(Strong("Last games"))
        rows += [text("• ", _result_line(r)) for r in recent]
        return Reply(lines(rows))

    async def _no_profile(self, target: int, own: bool, who: Part) -> Text:
        """Why a person has no profile here: no finished game at all, or only on other servers."""
        elsewhere = await self.records.servers_of(target)
        if own and not elsewhere:
            return say("You have not finished a game yet: your profile starts with your first. Open one with {new}.",
                       new=Command("new"))
        if own:
            return say("You have not finished a game on this server yet. Your games on other servers: {cmd}.",
                       cmd=Command("profile", "everywhere:True"))
        if not elsewhere:
            return say("{who} has not finished a game of Tiempo yet.", who=who)
        return say("{who} has not finished a game on this server; a profile shows the server's games (only its "
                   "player sees theirs across servers).", who=who)

    # -- ratings ----------------------------------------------------------------------------------

    async def leaderboard(self, caller: Caller, page: int = 1) -> Reply:
        """The server's best ratings, ``PAGE`` a page. Refusal: from a DM, or a page out of range."""
        if not caller.guild_id:
            raise Refusal(say("A leaderboard belongs to a server: ask in one of its channels."))
        count = await self.records.rated_players(caller.guild_id)
        if not count:
            return Reply(say("No rated game has been finished on this server yet: a game is rated when two or more "
                             "people play it with no AI seat."))
        pages = -(-count // PAGE)
        if not 1 <= page <= pages:
            raise Refusal(say("There is no page {page}: the leaderboard has {pages} {word} ({per} players a page). "
                              "Try {first}.", page=page, pages=pages, word="page" if pages == 1 else "pages",
                              per=PAGE, first=Command("leaderboard", "page:1")))
        board = await self.records.board(caller.guild_id, offset=(page - 1) * PAGE, limit=PAGE)
        rows: list[Text | Part] = [Strong(f"Leaderboard — page {page} of {pages}")]
        rank = 0
        for i, r in enumerate(board):
            if i == 0:
                found = await self.records.rating(caller.guild_id, r.user_id)
                rank = found[1] if found else 1
            elif r.rating != board[i - 1].rating:
                rank = (page - 1) * PAGE + i + 1
            entry = say("{rank}. {who} — {rating} ({n} {games})", rank=rank, who=Mention(r.user_id, r.name),
                        rating=r.rating, n=r.games, games="game" if r.games == 1 else "games")
            rows.append(entry + " ← you" if r.user_id == caller.user_id else entry)
        if page < pages:
            rows.append(say("Next: {next}.", next=Command("leaderboard", f"page:{page + 1}")))
        mine = await self.records.rating(caller.guild_id, caller.user_id)
        if mine is not None and not any(r.user_id == caller.user_id for r in board):
            rows.append(say("You: {place}, {rating}.", place=_ordinal(mine[1]), rating=mine[0].rating))
        return Reply(lines(rows))

    # -- recording --------------------------------------------------------------------------------

    async def catch_up(self) -> int:
        """Record the finished games that are not (a crash between a game's last action and its
        recording); how many. Their ratings change now, in the order of their ids."""
        done = 0
        for game_id in await self.records.unrecorded():
            async with self.games.storage.lock(game_id):
                done += await record_finished(self.games, await self.games.storage.get_game(game_id))
        return done

    async def rebuild(self, say: Callable[[str], None] = lambda line: None) -> tuple[int, int]:
        """Every rating worked out again from the stored games: the finished games not yet recorded are
        first, then each rated game's change, in the order the games finished, replaces the ratings in
        one transaction. Returns (rated games, people rated)."""
        while missing := await self.records.unrecorded(limit=200):
            for game_id in missing:
                game = await self.games.storage.get_game(game_id)
                results = results_of(game, self.games.state_of(game), await stats_of(self.games, game))
                if not await self.records.record_game(results):
                    raise RuntimeError(f"game #{game_id} could not be recorded")
            say(f"Recorded {len(missing)} finished game(s) that had no results.")
        changes, ratings = replay_ratings(await self.records.rated_results())
        await self.records.replace_ratings(changes, list(ratings.values()))
        return len({c.game_id for c in changes}), len(ratings)


def _totals_lines(t: Totals) -> list[Text]:
    built = (t.built_might, t.built_faith, t.built_reason)
    favourite = max(range(3), key=lambda i: (built[i], -i))
    out = [say("{games} {word} played, {won} won ({share}%), {average} Ecus on average.", games=t.games,
               word="game" if t.games == 1 else "games", won=t.won, share=round(100 * t.won / t.games),
               average=f"{t.average_ecus:.1f}")]
    if sum(built):
        out.append(say("Favourite Age: {age} ({n} of {total} buildings).", age=AGES[favourite], n=built[favourite],
                       total=sum(built)))
    out.append(say("Ripples caused: {ripples}; paradoxes caused: {paradoxes}.", ripples=t.ripples,
                   paradoxes=t.paradoxes))
    return out


def replay_ratings(results: Iterable[ResultRecord]
                   ) -> tuple[list[RatingChange], dict[tuple[int, int], RatingRecord]]:
    """Every rating change of these results of rated games (in the order the games finished), and the
    ratings they end with, per (server, person)."""
    ratings: dict[tuple[int, int], RatingRecord] = {}
    changes: list[RatingChange] = []
    game: list[ResultRecord] = []

    def close() -> None:
        if game:
            guild = game[0].guild_id
            made, rated = rating_update(game, {r.user_id: ratings.get((guild, r.user_id)) for r in game})
            changes.extend(made)
            ratings.update({(guild, r.user_id): r for r in rated})
            game.clear()

    for r in results:
        if game and r.game_id != game[0].game_id:
            close()
        game.append(r)
    close()
    return changes, ratings
