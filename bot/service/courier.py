"""Sends the posts of the outbox: the announcements of accepted actions, stored with them.

One task per channel sends that channel's posts in order, outside every game's lock: a channel Discord
slows down (rate limits) delays its own posts, never a game. A sent post is taken out of the outbox
``FORGET_AFTER_S`` later, together with every post sent meanwhile (one transaction for all the
channels, not one a post); until then, and for as long as taking it out fails, this process skips it.
After a restart, ``resume`` sends what a crash left unsent; each post carries a nonce Discord enforces,
so a post that went out just before the crash is not posted twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable
from typing import NamedTuple

from ..storage import DatabaseBusyError, DatabaseFaultError, QueuedLetter, Storage
from ..words import Text, lines
from .messages import (
    DirectOutbox,
    DMClosed,
    Editor,
    Outbox,
    Post,
    Rewriter,
    SendLater,
    decode_post,
    encode_words,
    settled,
)
from .reminders import told_why

log = logging.getLogger("tiempo.courier")

#: the longest pause before a channel's posts are tried again after a failure, in seconds
RETRY_MAX_S = 60.0
#: a turn's live message grows up to this many characters; then a new one goes on
LIVE_MAX = 1800
#: the channels whose last live message is remembered (the least recently posted to are forgotten:
#: their next post starts a new message rather than growing the old one)
LIVE_KEPT = 1024
#: the keyed messages remembered (``Post.key``: a decision, a lobby, an AI's "thinking…"), the least
#: recently sent forgotten first: a forgotten one keeps its buttons, which answer as any stale button
KEYED_KEPT = 1024
#: the posts read from the outbox at a time; fewer means none was left (no second read to find out)
PENDING_BATCH = 20
#: sent posts are taken out of the outbox at most this often, in seconds: at once when the last time was
#: longer ago (a quiet bot), else this long after it, with all those sent meanwhile (a busy bot: one
#: transaction for many). A crash before a post is taken out sends it again at the next start (its
#: nonce keeps Discord from posting it twice; a line added to a turn's message by an edit, which has
#: no nonce, is told again)
FORGET_AFTER_S = 0.05
#: the pause before taking sent posts out is tried again when the database is busy or failed, in seconds
FORGET_RETRY_S = 0.5


async def cancel_all(tasks: Iterable[asyncio.Task[None]]) -> None:
    """Cancel ``tasks`` and wait until they have ended."""
    tasks = list(tasks)
    for t in tasks:
        t.cancel()
    for t in tasks:
        with contextlib.suppress(BaseException):
            await t


class Courier:
    """The outbox's sender. ``owns`` says whether a server is this process's (its shard)."""

    def __init__(self, storage: Storage, outbox: Outbox, owns: Callable[[int], bool]) -> None:
        self.storage = storage
        self.outbox = outbox
        self.owns = owns
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()
        self._closed = False
        #: how long a command waits for its channel's posts before answering anyway, in seconds
        self.patience = 2.0
        #: per channel being sent to, posts sent (or dropped): did a try make progress
        self._sent: Counter[int] = Counter()
        #: per channel, its last post when it is a turn's live message (at most ``LIVE_KEPT`` channels)
        self._live: OrderedDict[int, _Live] = OrderedDict()
        #: the posts sent and not yet taken out of the outbox (``SentPosts``)
        self.sent = SentPosts(storage)
        #: the direct messages' sender (``/tiempo notify dm``): one task, and whether to look again
        self._letters: asyncio.Task[None] | None = None
        self._letters_again = False
        #: unix seconds (the service's clock: tests pass a fake), for the direct messages that are due
        self.clock: Callable[[], float] = time.time
        #: per channel and key, the keyed message sent last (``Post.key``), to settle it later; in
        #: memory only: after a restart the messages sent before it keep their buttons (pressed,
        #: they answer as any stale button: the game as it is now)
        self._keyed: OrderedDict[tuple[int, str], _Keyed] = OrderedDict()

    def kick(self, channel_id: int) -> None:
        """Posts were stored for ``channel_id``: send them (now, or after the ones being sent)."""
        if self._closed:  # shutting down: they are sent after the next start
            return
        self._again.add(channel_id)
        task = self._tasks.get(channel_id)
        if task is None or task.done():
            task = self._tasks[channel_id] = asyncio.create_task(self._drain(channel_id),
                                                                 name=f"tiempo-posts-{channel_id}")
            task.add_done_callback(lambda done: self._ended(channel_id, done))

    def _ended(self, channel_id: int, task: asyncio.Task[None]) -> None:
        """A channel's sender ended (nothing was left to send): forgotten, with its count."""
        if self._tasks.get(channel_id) is task:
            del self._tasks[channel_id]
            self._sent.pop(channel_id, None)

    async def flush(self, channel_id: int, timeout: float | None = None) -> None:
        """Wait (at most ``timeout`` seconds, by default ``patience``) until the channel's posts are out:
        a command answers after the channel heard of it, unless Discord is slow."""
        task = self._tasks.get(channel_id)
        if task is not None and not task.done():
            await asyncio.wait({task}, timeout=self.patience if timeout is None else timeout)

    async def resume(self) -> None:
        """After a start-up: send the posts a stop or a crash left in the outbox (this process's servers)."""
        for guild_id, channel_id in await self.storage.posts.channels():
            if self.owns(guild_id):
                self.kick(channel_id)
        self.kick_letters()  # and the direct messages that are due

    async def close(self) -> None:
        """Stop sending (what is left is sent after the next start); the posts sent are taken out of the
        outbox first (if the database allows: else the next start sends them again, with their nonce)."""
        self._closed = True
        await cancel_all([*self._tasks.values(), *([self._letters] if self._letters is not None else [])])
        await self.sent.close()

    async def forgotten(self) -> None:
        """Take the posts sent so far out of the outbox now (``SentPosts.forgotten``)."""
        await self.sent.forgotten()

    async def _drain(self, channel_id: int) -> None:
        """Send the channel's posts until none is left; when Discord, the network or the database fails,
        try again after a pause (1 s, doubling up to ``RETRY_MAX_S``), in order: nothing is skipped."""
        pause = 0.0
        while True:
            sent = self._sent[channel_id]
            try:
                await self._send_waiting(channel_id)
                return
            except asyncio.CancelledError:
                raise
            except Exception as err:
                # a first trouble, or a new one after some posts went out: 1 s; else twice the last pause
                pause = 1.0 if not pause or self._sent[channel_id] > sent else min(pause * 2, RETRY_MAX_S)
                if isinstance(err, SendLater | DatabaseBusyError | DatabaseFaultError):
                    log.warning("posts to channel %s wait (%s); trying again in %.0f s", channel_id,
                                getattr(err, "what", err), pause)
                else:
                    log.exception("the outbox of channel %s failed; trying again in %.0f s", channel_id, pause)
            self._again.add(channel_id)
            await asyncio.sleep(pause)

    async def _send_waiting(self, channel_id: int) -> None:
        try:
            while channel_id in self._again:
                self._again.discard(channel_id)
                await self._send_pass(channel_id)
        finally:
            self.sent.done_reading(channel_id)

    async def _send_pass(self, channel_id: int) -> None:
        """Send the channel's posts waiting now, in order."""
        after = 0  # (each pass reads from the oldest: a post stored later may have an earlier id)
        while True:
            self.sent.reading(channel_id)
            queued = await self.storage.posts.pending(channel_id, limit=PENDING_BATCH, after=after)
            for item in queued:
                if self.sent.was_sent(channel_id, item.id):  # (not taken out yet, or after this read began)
                    continue
                try:
                    await self._deliver(channel_id, decode_post(item.body, item.pictures), item.nonce, item.id)
                except SendLater:  # kept, in its place: the channel waits and tries again
                    raise
                except Exception:  # a post that cannot be read or sent never will be: logged and dropped
                    log.exception("post %s of game #%s cannot be sent; it is dropped", item.id, item.game_id)
                self._sent[channel_id] += 1
                self.sent.add(item.id)
            if len(queued) < PENDING_BATCH:  # that was all; a post stored since came with a kick (_again)
                return
            after = queued[-1].id

    async def _deliver(self, channel_id: int, post: Post, nonce: str, post_id: int) -> None:
        """Send ``post``; a turn's ``live`` post is added to the channel's last message when that is
        the same turn's live message (and the front end can edit: Discord), so that a turn played
        action by action reads as one message that grows, not one message an action."""
        if post.settles is not None:  # no new message: an earlier one loses its buttons
            await self.settle(channel_id, post.settles, post.text)
            return
        if post.live is None or not isinstance(self.outbox, Editor):
            sent = await self.outbox.post(channel_id, post, nonce=nonce)
            self._live.pop(channel_id, None)  # another post ends the live message
            if post.key is not None and isinstance(sent, int):
                await self.remember(channel_id, post.key, sent, post)
            return
        held = self._live.get(channel_id)
        if held is not None and held.post_id == post_id:  # added already; only forgetting it failed
            return
        if held is not None and held.key == post.live:
            # an undo (``retracts``) takes the place of the account of what it takes back
            entries = (*(held.entries[:-1] if post.retracts else held.entries), post.text)
            grown = lines(entries)
            if len(grown.plain()) <= LIVE_MAX and await self.outbox.edit(channel_id, held.message_id, Post(grown)):
                self._keep_live(channel_id, _Live(post.live, held.message_id, entries, post_id))
                return
        sent = await self.outbox.post(channel_id, post, nonce=nonce)
        if isinstance(sent, int):
            self._keep_live(channel_id, _Live(post.live, sent, (post.text,), post_id))
        else:
            self._live.pop(channel_id, None)

    async def remember(self, channel_id: int, key: str, message_id: int, post: Post) -> None:
        """The channel's message ``message_id`` says ``post``, named ``key`` (sent by the courier, or by
        the front end as a public reply): a later post settles it. The message sent before it with the
        same key is settled now (its buttons go, its words stay)."""
        if not isinstance(self.outbox, Rewriter):
            return
        before = self._keyed.get((channel_id, key))
        self._keyed[(channel_id, key)] = _Keyed(message_id, _named(post))
        self._keyed.move_to_end((channel_id, key))
        while len(self._keyed) > KEYED_KEPT:
            self._keyed.popitem(last=False)
        if before is not None and before.message_id != message_id:
            now = settled(before.post, None)
            if now.controls != before.post.controls:  # it had buttons to lose
                try:  # (the new message is out: Discord's trouble now only leaves the old one's buttons)
                    await self._rewrite(channel_id, before.message_id, now)
                except SendLater as err:
                    log.warning("the buttons of message %s in channel %s stay (%s)", before.message_id,
                                channel_id, err)

    async def settle(self, channel_id: int, key: str, note: Text | None = None) -> None:
        """The channel's message named ``key`` stopped meaning anything: its buttons go (but the
        lasting ones), its last line becomes ``note`` when there is one. Nothing when the front end
        cannot edit (the console) or the message is not remembered (sent before a restart)."""
        held = self._keyed.get((channel_id, key))
        if held is None or not isinstance(self.outbox, Rewriter):
            return
        now = settled(held.post, note)
        if await self._rewrite(channel_id, held.message_id, now):
            self._keyed[(channel_id, key)] = _Keyed(held.message_id, now)
        else:
            self._keyed.pop((channel_id, key), None)

    async def _rewrite(self, channel_id: int, message_id: int, post: Post) -> bool:
        assert isinstance(self.outbox, Rewriter)
        return await self.outbox.rewrite(channel_id, message_id, post)

    def _keep_live(self, channel_id: int, live: _Live) -> None:
        """Remember the channel's live message, as the most recent of at most ``LIVE_KEPT``."""
        self._live[channel_id] = live
        self._live.move_to_end(channel_id)
        while len(self._live) > LIVE_KEPT:
            self._live.popitem(last=False)

    # -- direct messages (/tiempo notify dm; bot/service/reminders.py) ----------------------------

    def kick_letters(self) -> None:
        """Send the direct messages that are due (now, or after the ones being sent)."""
        if self._closed:
            return
        self._letters_again = True
        if self._letters is None or self._letters.done():
            self._letters = asyncio.create_task(self._send_letters(), name="tiempo-direct-messages")

    async def letters_sent(self) -> None:
        """Wait until the direct messages being sent are out (for tests and the timers)."""
        while self._letters is not None and not self._letters.done():
            await asyncio.wait({self._letters})

    async def _send_letters(self) -> None:
        """Send the due direct messages of this process's servers, oldest first; one whose game moved on
        is dropped unsent. When Discord or the database fails, the rest wait for the next tick."""
        try:
            while self._letters_again:
                self._letters_again = False
                while due := await self.storage.notices.due(self.clock()):
                    done = [await self._send_letter(letter) for letter in due]
                    if not any(done):  # only other processes' servers are left
                        break
        except asyncio.CancelledError:
            raise
        except (SendLater, DatabaseBusyError, DatabaseFaultError) as err:
            log.warning("direct messages wait (%s); trying again at the next tick", getattr(err, "what", err))
        except Exception:
            log.exception("the direct messages failed; trying again at the next tick")

    async def _send_letter(self, letter: QueuedLetter) -> bool:
        """Send (or drop) one due direct message; False if it is another process's to send."""
        notices = self.storage.notices
        if not letter.current:  # the player acted, or the game ended: not wanted any more
            await notices.sent(letter.id)
            return True
        if not self.owns(letter.guild_id):
            return False
        try:
            if not isinstance(self.outbox, DirectOutbox):  # no direct messages here: the channel's mention
                raise DMClosed
            await self.outbox.direct(letter.user_id, decode_post(letter.body), nonce=letter.nonce)
        except DMClosed:
            fallback = decode_post(letter.fallback)
            told = encode_words(told_why(fallback) if isinstance(self.outbox, DirectOutbox) else fallback)
            await notices.refused(letter, told, letter.fallback, now=self.clock())
            self.kick(letter.channel_id)
            return True
        except SendLater:
            raise
        except Exception:  # a message that cannot be read or sent never will be: logged and dropped
            log.exception("direct message %s of game #%s cannot be sent; it is dropped", letter.id, letter.game_id)
        await notices.sent(letter.id)
        return True


class SentPosts:
    """The posts sent (or dropped) and not yet taken out of the outbox: taken out all in one
    transaction (``_sweep``), at most once every ``forget_after`` seconds, or again after a failure;
    never sent again meanwhile (Discord forgets a nonce after a few minutes)."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        #: the least time between two sweeps (the most a post waits to be taken out), in seconds
        self.forget_after = FORGET_AFTER_S
        self._last = float("-inf")  # when the last sweep began (the event loop's clock)
        self._done: set[int] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._hurry = False  # take the sent posts out now (``forgotten``)
        self._wake: asyncio.Future[None] | None = None  # what the sweeper waits on: a timer, or a hurry
        #: the sweeps committed so far; per channel being sent to, how many were when its posts were read
        #: last; and the posts the sweeps took out since the oldest of those reads, by sweep: a read
        #: begun before a sweep committed may still return its posts (PostgreSQL reads on another
        #: connection), which must not be sent again
        self._sweeps = 0
        self._reads: dict[int, int] = {}
        self._swept: dict[int, int] = {}

    def add(self, post_id: int) -> None:
        """A post went out (or was dropped): it is taken out of the outbox at once, or with the others
        sent meanwhile once ``forget_after`` has passed since the last sweep; skipped until then."""
        self._done.add(post_id)
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.create_task(self._sweep(), name="tiempo-outbox-sweep")

    def reading(self, channel_id: int) -> None:
        """The channel's posts are being read from the outbox (``was_sent`` answers for that read)."""
        self._reads[channel_id] = self._sweeps

    def done_reading(self, channel_id: int) -> None:
        """The channel's sender ended."""
        self._reads.pop(channel_id, None)

    def was_sent(self, channel_id: int, post_id: int) -> bool:
        """Whether a post the channel's last read returned was sent already: it waits to be taken out of
        the outbox, or a sweep took it out after that read began."""
        return post_id in self._done or self._swept.get(post_id, 0) > self._reads[channel_id]

    async def forgotten(self) -> None:
        """Take the posts sent so far out of the outbox now, not ``forget_after`` after they went out,
        and wait until that is done (while the database fails, until it works again)."""
        self._hurry = True
        if self._wake is not None:
            _wake(self._wake)
        while self._sweeper is not None and not self._sweeper.done():
            await asyncio.wait({self._sweeper})
        self._hurry = False

    async def close(self) -> None:
        """Stop sweeping, and take out at once what was sent (else the next start sends it again)."""
        await cancel_all([self._sweeper] if self._sweeper is not None else [])
        if self._done:
            try:
                await self.storage.posts.sent(*sorted(self._done))
                self._done.clear()
            except Exception as err:
                log.warning("%s sent posts stay in the outbox (%s): the next start sends them again, with "
                            "their nonce", len(self._done), getattr(err, "what", err))

    async def _sweep(self) -> None:
        """Take the sent posts out of the outbox, all in one transaction, at most once every
        ``forget_after`` seconds (at once when the last sweep is older); while the database is busy or
        fails (a full disk…), try again after a pause (``FORGET_RETRY_S``, doubling up to
        ``RETRY_MAX_S``): they stay in ``_done`` meanwhile, so that none of them is sent again."""
        pause, failed = FORGET_RETRY_S, 0.0
        loop = asyncio.get_running_loop()
        while self._done:
            wait = self._last + self.forget_after - loop.time()
            if failed:  # (hurried or not)
                await asyncio.sleep(failed)
            elif wait > 0 and not self._hurry:  # (a plain timer: cheaper than a wait_for)
                self._wake = loop.create_future()
                timer = loop.call_later(wait, _wake, self._wake)
                try:
                    await self._wake
                finally:
                    timer.cancel()
            self._last = loop.time()
            ids = sorted(self._done)
            try:
                await self.storage.posts.sent(*ids)
            except asyncio.CancelledError:
                raise
            except Exception as err:
                if isinstance(err, DatabaseBusyError | DatabaseFaultError):
                    log.warning("%s sent posts stay in the outbox for now (%s); taking them out again in %.1f s",
                                len(ids), getattr(err, "what", err), pause)
                else:
                    log.exception("%s sent posts stay in the outbox for now; taking them out again in %.1f s",
                                  len(ids), pause)
                failed, pause = pause, min(pause * 2, RETRY_MAX_S)
                continue
            self._sweeps += 1
            low = min(self._reads.values(), default=self._sweeps)
            self._swept = {i: n for i, n in self._swept.items() if n > low}
            self._swept.update(dict.fromkeys(ids, self._sweeps))
            self._done.difference_update(ids)
            pause, failed = FORGET_RETRY_S, 0.0


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class _Live(NamedTuple):
    """A channel's last message when it is a turn's running account."""

    key: str  #: the posts' ``live``
    message_id: int
    entries: tuple[Text, ...]  #: what it says: the posts added to it, one after the other
    post_id: int  #: the outbox post added last (sent again after a failure to forget it: not twice)


class _Keyed(NamedTuple):
    """A keyed message (``Post.key``): its id, and what it says (its pictures named, not kept)."""

    message_id: int
    post: Post


def _named(post: Post) -> Post:
    """``post`` with its pictures' bytes left out (a rewrite keeps the message's attachments)."""
    return dataclasses.replace(post, png=b"" if post.png is not None else None,
                               gallery=tuple(dataclasses.replace(p, png=b"") for p in post.gallery))
