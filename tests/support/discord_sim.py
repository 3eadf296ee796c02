"""A Discord stand-in on 127.0.0.1 for end-to-end tests of a discord.py 2.x bot.

The simulated Discord is an aiohttp server on a random loopback port that answers the REST calls
discord.py makes for a bot that uses slash commands, components and messages: login, application
info, command sync, interaction callbacks (JSON and multipart with files), follow-up webhooks, the
original response, channel messages, DM channels and attachment downloads. It keeps what real Discord
keeps (messages, their edits, attachments, ephemeral flags, which interaction made which message) and
refuses what real Discord refuses (a second answer to an interaction, an answer after 3 seconds, an
empty or oversized message, a command tree Discord would not accept), and it records every request
in order.

A client in this process never opens the gateway. ``DiscordSim.connect(client)`` logs in over HTTP,
then feeds the client a READY and a GUILD_CREATE per guild; ``inject(payload)`` feeds it an
INTERACTION_CREATE. Both go through the client's connection state's parsers
(``client._connection.parsers``), exactly where the gateway would deliver them. A bot started as in
production, in a process of its own (``Client.start``), connects to the gateway at ``gateway_url``: a
websocket that says hello, acknowledges heartbeats and answers the identify with the same READY and
GUILD_CREATEs (uncompressed JSON, which discord.py reads as well as zlib-stream); ``identified``
counts the identifies. Payloads come from ``slash``, ``autocomplete`` and ``click``, which
follow the command schema the bot synced, as Discord's client does.

``DiscordSim.running()`` starts the server, points discord.py at it (``discord.http.Route.BASE``, from
which every REST and webhook URL is built), refuses any socket connection or name lookup outside the
loopback range for its duration (``blocked`` lists the attempts), and closes everything afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import datetime
import ipaddress
import itertools
import json
import logging
import re
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import discord
import discord.http
from aiohttp import BodyPartReader, web

JSON = dict[str, Any]
ClientT = TypeVar("ClientT", bound=discord.Client)

API_PREFIX = "/api/v10"
#: where the simulator's gateway listens (a websocket)
GATEWAY_PATH = "/gateway"
DISCORD_EPOCH_MS = 1420070400000
#: message flags
EPHEMERAL = 64
LOADING = 128
COMPONENTS_V2 = 1 << 15
#: component types
ACTION_ROW, TEXT_DISPLAY, MEDIA_GALLERY, CONTAINER = 1, 10, 12, 17
#: what may stand at the top of a Components V2 message: rows, sections, texts, galleries, files,
#: separators, containers (a thumbnail only as a section's accessory)
V2_TOP_LEVEL = frozenset({1, 9, 10, 12, 13, 14, 17})
SELECTS = frozenset({3, 5, 6, 7, 8})
#: interaction types
PING, APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 1, 2, 3, 4, 5
#: interaction callback types
MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, AUTOCOMPLETE_RESULT, MODAL = 4, 5, 6, 7, 8, 9
#: which callbacks Discord accepts for which interaction type
ALLOWED_CALLBACKS: Mapping[int, frozenset[int]] = {
    APPLICATION_COMMAND: frozenset({MESSAGE, DEFERRED_MESSAGE, MODAL}),
    MESSAGE_COMPONENT: frozenset({MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, MODAL}),
    AUTOCOMPLETE: frozenset({AUTOCOMPLETE_RESULT}),
    MODAL_SUBMIT: frozenset({MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE}),
}
ALL_PERMISSIONS = str(discord.Permissions.all().value)
#: what an ordinary member of a server may do in its channels (no managing of channels or roles)
MEMBER_PERMISSIONS = str(discord.Permissions(
    view_channel=True, send_messages=True, send_messages_in_threads=True, read_message_history=True,
    use_application_commands=True, embed_links=True, attach_files=True, add_reactions=True).value)
FILE_SIZE_LIMIT = 10 * 1024 * 1024
COMMAND_NAME = re.compile(r"^[-_\w]{1,32}$")
#: Discord's cap on the characters of one command's names, descriptions and choice values together
#: (documented as 8000 since 2023; 4000 before)
COMMAND_TEXT_LIMIT = 8000


class SimError(AssertionError):
    """The bot did not do what the test waited for, or asked the simulator for something impossible."""


# ---------------------------------------------------------------------------------------------
# The simulated world


@dataclass(frozen=True)
class SimUser:
    """A Discord user."""

    id: int
    name: str
    bot: bool = False
    #: may manage the server's channels (its owner, an administrator); else an ordinary member
    manager: bool = False

    @property
    def mention(self) -> str:
        """``<@id>``."""
        return f"<@{self.id}>"

    def payload(self) -> JSON:
        """The user object Discord sends."""
        return {"id": str(self.id), "username": self.name, "global_name": self.name, "discriminator": "0",
                "avatar": None, "bot": self.bot, "public_flags": 0}


@dataclass(frozen=True)
class SimGuild:
    """A guild (server)."""

    id: int
    name: str


@dataclass(frozen=True)
class SimChannel:
    """A guild text channel, or a DM channel (``guild_id`` None, ``recipient_id`` set)."""

    id: int
    name: str
    guild_id: int | None
    recipient_id: int | None = None

    def payload(self) -> JSON:
        """The channel object Discord sends."""
        if self.guild_id is None:
            return {"id": str(self.id), "type": 1, "last_message_id": None, "flags": 0,
                    "recipients": [{"id": str(self.recipient_id), "username": "user", "discriminator": "0",
                                    "avatar": None}]}
        return {"id": str(self.id), "type": 0, "guild_id": str(self.guild_id), "name": self.name, "position": 0,
                "permission_overwrites": [], "nsfw": False, "parent_id": None, "topic": None,
                "last_message_id": None, "rate_limit_per_user": 0, "flags": 0}


@dataclass(frozen=True)
class Upload:
    """A file part of a multipart request."""

    field: str
    filename: str
    data: bytes
    content_type: str | None


@dataclass(frozen=True)
class RecordedRequest:
    """One HTTP request as the simulated Discord received it. ``path`` is without ``/api/v10``;
    ``json`` is the JSON body, or the ``payload_json`` part of a multipart body."""

    method: str
    path: str
    query: Mapping[str, str]
    json: Any
    files: tuple[Upload, ...]
    remote: str | None
    host: str
    at: float

    @property
    def body(self) -> JSON:
        """The JSON body if it is an object, else ``{}``."""
        return self.json if isinstance(self.json, dict) else {}

    @property
    def callback_type(self) -> int | None:
        """The interaction callback type, for ``POST /interactions/{id}/{token}/callback``."""
        if self.path.endswith("/callback") and isinstance(self.json, dict):
            return int(self.json.get("type", 0))
        return None

    @property
    def message_data(self) -> JSON:
        """The message fields sent: a callback's ``data``, or the whole JSON body."""
        body = self.json if isinstance(self.json, dict) else {}
        if self.callback_type is not None:
            data = body.get("data")
            return data if isinstance(data, dict) else {}
        return body

    @property
    def flags(self) -> int:
        """The message flags sent (0 when none)."""
        return int(self.message_data.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        """Whether the message was sent with the ephemeral flag (64)."""
        return bool(self.flags & EPHEMERAL)

    @property
    def content(self) -> str | None:
        """The message content sent, if any."""
        content = self.message_data.get("content")
        return None if content is None else str(content)

    @property
    def embeds(self) -> list[JSON]:
        """The embeds sent."""
        return list(self.message_data.get("embeds") or [])

    @property
    def components(self) -> list[JSON]:
        """The components sent."""
        return list(self.message_data.get("components") or [])

    @property
    def attachments(self) -> list[str]:
        """The file names of the files sent."""
        return [f.filename for f in self.files]


@dataclass(frozen=True)
class SimAttachment:
    """A file attached to a message; ``url`` serves ``data`` from the simulator."""

    id: int
    filename: str
    data: bytes
    content_type: str | None
    url: str
    description: str | None = None

    def payload(self) -> JSON:
        """The attachment object Discord sends."""
        data: JSON = {"id": str(self.id), "filename": self.filename, "size": len(self.data), "url": self.url,
                      "proxy_url": self.url, "content_type": self.content_type}
        if self.description:
            data["description"] = self.description
        return data


@dataclass(frozen=True)
class SimMessage:
    """A message as the simulated Discord holds it at one moment (edits make a new snapshot)."""

    payload: JSON
    attachments: tuple[SimAttachment, ...]
    interaction_id: int | None
    edits: int
    deleted: bool

    @property
    def id(self) -> int:
        """The message id."""
        return int(self.payload["id"])

    @property
    def channel_id(self) -> int:
        """The channel id."""
        return int(self.payload["channel_id"])

    @property
    def content(self) -> str:
        """The text: the content, or in a Components V2 message its text displays, one after the other."""
        return str(self.payload.get("content") or "") or "\n".join(text_displays(self.components))

    @property
    def v2(self) -> bool:
        """A Components V2 message (a layout of containers, texts and galleries)."""
        return bool(self.flags & COMPONENTS_V2)

    def gallery(self) -> list[list[str]]:
        """The media galleries of a Components V2 message, in order: each a list of attachment names."""
        return [[str(item["media"]["url"]).removeprefix("attachment://") for item in c.get("items") or []]
                for c in self.components_flat() if c.get("type") == MEDIA_GALLERY]

    @property
    def flags(self) -> int:
        """The message flags."""
        return int(self.payload.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        """Only the user of the interaction sees it."""
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """A deferred response still "thinking"."""
        return bool(self.flags & LOADING)

    @property
    def embeds(self) -> list[JSON]:
        """The embeds."""
        return list(self.payload.get("embeds") or [])

    @property
    def components(self) -> list[JSON]:
        """The components (action rows and what is in them)."""
        return list(self.payload.get("components") or [])

    @property
    def filenames(self) -> list[str]:
        """The attachments' file names."""
        return [a.filename for a in self.attachments]

    def components_flat(self) -> list[JSON]:
        """Every component, rows and containers included, depth first."""
        return list(_walk_components(self.components))

    def custom_ids(self) -> list[str]:
        """The custom ids of the message's buttons and menus, in order."""
        return [c["custom_id"] for c in self.components_flat() if "custom_id" in c]

    def custom_id(self, label: str) -> str:
        """The custom id of the button labelled ``label``; SimError if there is none."""
        for c in self.components_flat():
            if c.get("label") == label and "custom_id" in c:
                return str(c["custom_id"])
        raise SimError(f"message {self.id} has no button labelled {label!r}; it has {self.custom_ids()}")


def text_displays(components: Sequence[JSON]) -> list[str]:
    """The contents of the text displays among ``components``, depth first."""
    return [str(c.get("content") or "") for c in _walk_components(components) if c.get("type") == TEXT_DISPLAY]


def _walk_components(components: Sequence[JSON]) -> Iterator[JSON]:
    """Components depth first, including those inside rows, sections and containers."""
    for c in components:
        yield c
        yield from _walk_components(c.get("components") or [])
        if isinstance(c.get("accessory"), dict):
            yield from _walk_components([c["accessory"]])


@dataclass
class InteractionRecord:
    """An interaction the simulator sent to the bot, and how the bot answered it."""

    id: int
    token: str
    type: int
    payload: JSON
    user_id: int
    channel_id: int
    sent_at: float
    clicked_message_id: int | None = None
    #: the callback the bot posted (``{"type": ..., "data": ...}``), once it did
    callback: JSON | None = None
    answered_after: float | None = None
    #: the message ``@original`` refers to
    original_id: int | None = None
    #: messages that answer the interaction, in the order they appeared (original, edits, follow-ups)
    answer_ids: list[int] = field(default_factory=list)
    #: what Discord refused from the bot for this interaction
    refusals: list[str] = field(default_factory=list)

    @property
    def callback_type(self) -> int | None:
        """The callback type, once answered."""
        return None if self.callback is None else int(self.callback["type"])

    @property
    def callback_data(self) -> JSON:
        """The callback's data (``{}`` when none)."""
        data = None if self.callback is None else self.callback.get("data")
        return data if isinstance(data, dict) else {}


@dataclass
class _Stored:
    """A message in the simulator's store (mutable; snapshots are Messages)."""

    payload: JSON
    attachments: list[SimAttachment]
    interaction_id: int | None = None
    edits: int = 0
    deleted: bool = False

    def snapshot(self) -> SimMessage:
        """An immutable copy."""
        return SimMessage(copy.deepcopy(self.payload), tuple(self.attachments), self.interaction_id, self.edits,
                       self.deleted)


class _HTTPError(Exception):
    """A Discord error response."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def _json_response(data: Any, status: int = 200) -> web.Response:
    """A JSON response with exactly ``Content-Type: application/json`` (discord.py checks for that)."""
    return web.Response(body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"})


def _iso(ts: float) -> str:
    """ISO 8601 timestamp as Discord writes it."""
    return datetime.datetime.fromtimestamp(ts, datetime.UTC).isoformat()


# ---------------------------------------------------------------------------------------------
# Loopback guard


def is_loopback(host: str | bytes | None) -> bool:
    """Whether ``host`` is a loopback address or ``localhost``."""
    if host is None:
        return True  # a passive lookup (binding), not a destination
    name = host.decode() if isinstance(host, bytes) else str(host)
    if name.lower() in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(name.split("%")[0]).is_loopback
    except ValueError:
        return False


@contextlib.contextmanager
def loopback_only(blocked: list[str]) -> Iterator[None]:
    """Refuse (ConnectionRefusedError, gaierror) every socket connection and name lookup outside the
    loopback range while active, and note each attempt in ``blocked``. It guards Python's sockets,
    which asyncio's own loop uses (the tests' loop); uvloop's (in the child processes that start the
    bot as production does) connects and looks names up in libuv, past it: there every address the
    bot is given is the stand-in's, on 127.0.0.1."""
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def check(address: Any) -> None:
        """Raise for a non-loopback (host, port, ...) address; Unix socket paths are local."""
        if isinstance(address, tuple) and not is_loopback(address[0]):
            blocked.append(f"connect {address[0]}:{address[1]}")
            raise ConnectionRefusedError(f"tests may only connect to loopback, not {address[0]}")

    def connect(self: socket.socket, address: Any) -> None:
        """socket.connect, loopback only."""
        check(address)
        real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        """socket.connect_ex, loopback only."""
        check(address)
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        """socket.getaddrinfo, loopback only."""
        if not is_loopback(host):
            blocked.append(f"lookup {host}")
            raise socket.gaierror(socket.EAI_NONAME, f"tests may not look up {host}")
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign,assignment]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign,assignment]
    socket.getaddrinfo = getaddrinfo
    try:
        yield
    finally:
        socket.socket.connect = real_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = real_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = real_getaddrinfo


class _ErrorLog(logging.Handler):
    """Keeps the ERROR records discord.py logs (exceptions in commands, views, events)."""

    def __init__(self, records: list[logging.LogRecord]) -> None:
        super().__init__(logging.ERROR)
        self.records = records

    def emit(self, record: logging.LogRecord) -> None:
        """Keep the record."""
        self.records.append(record)


# ---------------------------------------------------------------------------------------------
# The simulator


Handler = Callable[[RecordedRequest, re.Match[str]], Awaitable[web.StreamResponse]]


class DiscordSim:
    """Discord's REST side on 127.0.0.1, and the gateway events a test sends to a bot."""

    def __init__(self, *, response_deadline: float = 3.0, token: str = "sim-token", guild_name: str = "Test Server",
                 channel_name: str = "general", bot_name: str = "Tiempo") -> None:
        """A world with one guild, one text channel, the bot user and a user ``alice``; ``token`` is the
        only bot token accepted. Not started."""
        self._ids = itertools.count(1)
        self.token = token
        self._last_snowflake = 0
        self.response_deadline = response_deadline
        self.application_id = self.snowflake()
        self.bot_user = SimUser(self.application_id, bot_name, bot=True)
        self.users: dict[int, SimUser] = {}
        self.guilds: dict[int, SimGuild] = {}
        self.channels: dict[int, SimChannel] = {}
        self.guild = self.add_guild(guild_name)
        self.channel = self.add_channel(channel_name)
        self.user = self.add_user("alice", manager=True)  # (the server's owner)
        #: registered application commands: None -> global, guild id -> that guild's
        self.commands: dict[int | None, list[JSON]] = {}
        self.requests: list[RecordedRequest] = []
        #: requests the simulator has no route for (answered 404)
        self.unhandled: list[RecordedRequest] = []
        #: connections and lookups refused for not being loopback
        self.blocked: list[str] = []
        #: ERROR records logged by discord.py (exceptions in commands, views and events)
        self.errors: list[logging.LogRecord] = []
        self.interactions: dict[int, InteractionRecord] = {}
        #: the next this many channel posts fail with 503 Service Unavailable (an outage of Discord's)
        self.failing_posts = 0
        #: users who closed their direct messages: the DM channel opens, but a message to it is refused
        #: (403, code 50007 "Cannot send messages to this user"), as Discord does
        self.closed_dms: set[int] = set()
        self._messages: dict[int, _Stored] = {}
        self._files: dict[str, SimAttachment] = {}
        self._clients: list[discord.Client] = []
        self.client: discord.Client | None = None
        self._changed = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.url = ""
        #: the bots that identified on the gateway (``gateway_url``)
        self.identified = 0
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = [
            (method, re.compile(pattern), handler) for method, pattern, handler in (
                ("GET", r"/users/@me", self._get_me),
                ("GET", r"/oauth2/applications/@me", self._get_application),
                ("GET", r"/users/(\d+)", self._get_user),
                ("POST", r"/users/@me/channels", self._open_dm),
                ("GET", r"/applications/(\d+)/commands", self._get_commands),
                ("PUT", r"/applications/(\d+)/commands", self._put_commands),
                ("GET", r"/applications/(\d+)/guilds/(\d+)/commands", self._get_commands),
                ("PUT", r"/applications/(\d+)/guilds/(\d+)/commands", self._put_commands),
                ("POST", r"/interactions/(\d+)/([^/]+)/callback", self._callback),
                ("POST", r"/webhooks/(\d+)/([^/]+)", self._followup),
                ("GET", r"/webhooks/(\d+)/([^/]+)/messages/(@original|\d+)", self._get_webhook_message),
                ("PATCH", r"/webhooks/(\d+)/([^/]+)/messages/(@original|\d+)", self._edit_webhook_message),
                ("DELETE", r"/webhooks/(\d+)/([^/]+)/messages/(@original|\d+)", self._delete_webhook_message),
                ("GET", r"/channels/(\d+)", self._get_channel),
                ("POST", r"/channels/(\d+)/typing", self._typing),
                ("GET", r"/channels/(\d+)/messages", self._get_channel_messages),
                ("POST", r"/channels/(\d+)/messages", self._post_channel_message),
                ("GET", r"/channels/(\d+)/messages/(\d+)", self._get_channel_message),
                ("PATCH", r"/channels/(\d+)/messages/(\d+)", self._edit_channel_message),
                ("DELETE", r"/channels/(\d+)/messages/(\d+)", self._delete_channel_message),
                ("GET", r"/guilds/(\d+)", self._get_guild),
                ("GET", r"/guilds/(\d+)/members/(\d+)", self._get_member),
            )
        ]

    # -- life cycle -------------------------------------------------------------------------------

    @classmethod
    @contextlib.asynccontextmanager
    async def running(cls, **kwargs: Any) -> AsyncIterator[DiscordSim]:
        """A started simulator with discord.py pointed at it and the network limited to loopback;
        on exit the clients it connected are closed, the server stops and discord.py is restored."""
        sim = cls(**kwargs)
        errors = _ErrorLog(sim.errors)
        base = discord.http.Route.BASE
        with loopback_only(sim.blocked):
            await sim.start()
            discord.http.Route.BASE = sim.url + API_PREFIX
            logging.getLogger("discord").addHandler(errors)
            try:
                yield sim
            finally:
                logging.getLogger("discord").removeHandler(errors)
                try:
                    await sim.close()
                finally:
                    discord.http.Route.BASE = base

    async def start(self) -> None:
        """Listen on 127.0.0.1 at a free port; ``url`` is then the server's base URL."""
        app = web.Application(client_max_size=4 * FILE_SIZE_LIMIT)
        app.router.add_get(GATEWAY_PATH, self._gateway)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        site = web.SockSite(self._runner, sock)
        await site.start()
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"

    async def close(self) -> None:
        """Close every client connected through the simulator, then stop the server."""
        for client in self._clients:
            if not client.is_closed():
                await client.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def connect(self, client: ClientT, *, token: str | None = None, ready: bool = True,
                      timeout: float = 5.0) -> ClientT:
        """Log ``client`` in over HTTP (which runs its ``setup_hook``), then, with ``ready``, send it READY
        and a GUILD_CREATE per guild and wait until it is ready. Later ``inject`` calls go to it: to
        simulate a restart, close the old client and connect a new one."""
        self._clients.append(client)  # closed by close() even if login fails
        await client.login(self.token if token is None else token)
        self.client = client
        if client.application_id != self.application_id:
            raise SimError(f"client has application id {client.application_id}, expected {self.application_id}")
        if ready:
            state = client._connection
            # discord.py waits this long after the last GUILD_CREATE before READY; all are sent at once
            state.guild_ready_timeout = min(state.guild_ready_timeout, 0.05)
            for event, payload in self.ready_events():
                self.dispatch(event, payload)
            await asyncio.wait_for(client.wait_until_ready(), timeout)
        return client

    def ready_events(self) -> list[tuple[str, JSON]]:
        """What the gateway sends a bot that identified: READY, then a GUILD_CREATE per guild."""
        return [("READY", {
            "v": 10, "user": self.bot_user.payload(), "session_id": "sim-session",
            "resume_gateway_url": "ws://127.0.0.1:9", "shard": [0, 1],
            "guilds": [{"id": str(g), "unavailable": True} for g in self.guilds],
            "application": {"id": str(self.application_id), "flags": 0},
        }), *(("GUILD_CREATE", self.guild_payload(guild)) for guild in self.guilds.values())]

    @property
    def gateway_url(self) -> str:
        """The gateway's websocket URL (for ``DiscordWebSocket.DEFAULT_GATEWAY`` in a bot's process)."""
        return self.url.replace("http://", "ws://", 1) + GATEWAY_PATH

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        """The gateway: hello, a heartbeat's acknowledgement, READY and the guilds after an identify with
        the simulator's token (else close code 4004, authentication failed)."""
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_json({"op": 10, "d": {"heartbeat_interval": 41250}})
        seq = itertools.count(1)
        async for message in ws:
            if message.type != web.WSMsgType.TEXT:
                break
            op, data = (got := json.loads(message.data))["op"], got.get("d")
            if op == 1:  # heartbeat
                await ws.send_json({"op": 11})
            elif op == 2 and data.get("token") != self.token:
                await ws.close(code=4004)
            elif op == 2:  # identify
                self.identified += 1
                for event, payload in self.ready_events():
                    await ws.send_json({"op": 0, "t": event, "s": next(seq), "d": payload})
        return ws

    def dispatch(self, event: str, payload: JSON, client: discord.Client | None = None) -> None:
        """Deliver a gateway event to ``client`` (default: the last connected) as the gateway would."""
        target = client or self.client
        if target is None:
            raise SimError("no client: call connect(client) first")
        parser = target._connection.parsers.get(event)
        if parser is None:
            raise SimError(f"discord.py has no parser for {event}")
        parser(copy.deepcopy(payload))

    # -- the world --------------------------------------------------------------------------------

    def snowflake(self) -> int:
        """A new id, increasing, with the current time in it like Discord's."""
        now = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        self._last_snowflake = max(now, self._last_snowflake + 1)
        return self._last_snowflake

    def add_user(self, name: str, *, manager: bool = False) -> SimUser:
        """A new member of every guild: an ordinary member, or one who may manage its channels."""
        user = SimUser(self.snowflake(), name, manager=manager)
        self.users[user.id] = user
        return user

    def chat(self, user: SimUser, content: str, channel: SimChannel | None = None) -> SimMessage:
        """A message a player writes in a channel (the bot does not receive it: no message intents)."""
        stored = self._create_message((channel or self.channel).id, {"content": content}, [])
        stored.payload["author"] = user.payload()
        self._notify()
        return stored.snapshot()

    def add_guild(self, name: str) -> SimGuild:
        """A new guild the bot is in."""
        guild = SimGuild(self.snowflake(), name)
        self.guilds[guild.id] = guild
        return guild

    def add_channel(self, name: str, guild: SimGuild | None = None) -> SimChannel:
        """A new text channel in ``guild`` (default: the first guild)."""
        channel = SimChannel(self.snowflake(), name, (guild or self.guild).id)
        self.channels[channel.id] = channel
        return channel

    def dm_channel(self, user: SimUser) -> SimChannel:
        """The DM channel between the bot and ``user`` (made on first use)."""
        for channel in self.channels.values():
            if channel.recipient_id == user.id:
                return channel
        channel = SimChannel(self.snowflake(), f"dm-{user.name}", None, user.id)
        self.channels[channel.id] = channel
        return channel

    def member_payload(self, user: SimUser, *, with_user: bool = True) -> JSON:
        """A guild member object for ``user``."""
        data: JSON = {"roles": [], "joined_at": _iso(0), "deaf": False, "mute": False, "flags": 0, "pending": False,
                      "nick": None, "avatar": None, "premium_since": None,
                      "permissions": ALL_PERMISSIONS if user.manager else MEMBER_PERMISSIONS}
        if with_user:
            data["user"] = user.payload()
        return data

    def guild_payload(self, guild: SimGuild) -> JSON:
        """A GUILD_CREATE payload: the guild, its channels, the @everyone role, all members."""
        members = [self.bot_user, *self.users.values()]
        return {
            "id": str(guild.id), "name": guild.name, "icon": None, "owner_id": str(next(iter(self.users), 0)),
            "features": [], "emojis": [], "stickers": [], "threads": [], "voice_states": [], "presences": [],
            "stage_instances": [], "guild_scheduled_events": [], "soundboard_sounds": [],
            "roles": [{"id": str(guild.id), "name": "@everyone", "permissions": MEMBER_PERMISSIONS, "position": 0,
                       "color": 0, "hoist": False, "managed": False, "mentionable": False, "flags": 0}],
            "channels": [c.payload() for c in self.channels.values() if c.guild_id == guild.id],
            "members": [self.member_payload(u) for u in members], "member_count": len(members),
            "large": False, "unavailable": False, "joined_at": _iso(0), "preferred_locale": "en-US",
            "premium_tier": 0, "system_channel_flags": 0, "verification_level": 0,
            "default_message_notifications": 0, "explicit_content_filter": 0, "mfa_level": 0, "nsfw_level": 0,
        }

    # -- payload builders -------------------------------------------------------------------------

    def find_command(self, name: str, guild_id: int | None) -> JSON:
        """The registered chat-input command ``name`` visible in ``guild_id``; SimError if the bot has
        not synced one (Discord would not offer it)."""
        for scope in (guild_id, None):
            for command in self.commands.get(scope, []):
                if command["name"] == name and command.get("type", 1) == 1:
                    return command
        raise SimError(f"/{name} is not registered with Discord (did the bot sync its command tree?); "
                       f"registered: {[c['name'] for cs in self.commands.values() for c in cs]}")

    def slash(self, name: str, sub: str | None = None, options: Mapping[str, Any] | None = None, *,
              user: SimUser | None = None, channel: SimChannel | None = None) -> JSON:
        """An INTERACTION_CREATE payload for ``/name sub option:value ...`` (``sub`` may be ``"group sub"``),
        typed and checked against the synced command (unknown or missing options raise SimError). A
        SimUser or SimChannel value fills ``resolved``."""
        channel = channel or self.channel
        data = self._command_data(name, sub, dict(options or {}), channel, focused=None)
        return self._interaction(APPLICATION_COMMAND, data, user or self.user, channel)

    def autocomplete(self, name: str, sub: str | None, options: Mapping[str, Any], focused: str, *,
                     user: SimUser | None = None, channel: SimChannel | None = None) -> JSON:
        """An autocomplete INTERACTION_CREATE payload: ``options`` typed so far, ``focused`` the option
        being typed (its value is the text typed, a string)."""
        channel = channel or self.channel
        data = self._command_data(name, sub, dict(options), channel, focused=focused)
        return self._interaction(AUTOCOMPLETE, data, user or self.user, channel)

    def click(self, custom_id: str, message: SimMessage | int, *, user: SimUser | None = None,
              values: Sequence[str] | None = None) -> JSON:
        """A component INTERACTION_CREATE payload: ``user`` clicks the button (or picks ``values`` in the
        menu) ``custom_id`` on ``message`` as the simulator holds it now. SimError if there is no such
        component."""
        stored = self._message(message.id if isinstance(message, SimMessage) else message)
        snapshot = stored.snapshot()
        component = next((c for c in snapshot.components_flat() if c.get("custom_id") == custom_id), None)
        if component is None:
            raise SimError(f"message {snapshot.id} has no component {custom_id!r}; it has {snapshot.custom_ids()}")
        if component.get("disabled"):
            raise SimError(f"component {custom_id!r} is disabled")
        data: JSON = {"custom_id": custom_id, "component_type": int(component["type"])}
        if values is not None:
            data["values"] = list(values)
        elif component["type"] != 2:
            raise SimError("a select menu needs values")
        channel = self.channels[snapshot.channel_id]
        payload = self._interaction(MESSAGE_COMPONENT, data, user or self.user, channel)
        payload["message"] = snapshot.payload
        return payload

    def _interaction(self, type_: int, data: JSON, user: SimUser, channel: SimChannel) -> JSON:
        """The common part of an interaction payload."""
        iid = self.snowflake()
        payload: JSON = {
            "id": str(iid), "application_id": str(self.application_id), "type": type_, "data": data,
            "token": f"sim-token-{iid}-{next(self._ids)}", "version": 1, "locale": "en-US",
            "channel_id": str(channel.id), "channel": channel.payload(), "app_permissions": ALL_PERMISSIONS,
            "entitlements": [], "attachment_size_limit": FILE_SIZE_LIMIT,
        }
        if channel.guild_id is not None:
            payload.update(guild_id=str(channel.guild_id), guild_locale="en-US", context=0,
                           guild={"id": str(channel.guild_id), "locale": "en-US", "features": []},
                           member=self.member_payload(user),
                           authorizing_integration_owners={"0": str(channel.guild_id)})
        else:
            payload["channel"]["recipients"] = [user.payload()]
            payload.update(user=user.payload(), context=1, authorizing_integration_owners={"0": str(user.id)})
        return payload

    def _command_data(self, name: str, sub: str | None, given: dict[str, Any], channel: SimChannel,
                      focused: str | None) -> JSON:
        """The ``data`` of a command interaction, following the registered schema."""
        command = self.find_command(name, channel.guild_id)
        resolved: JSON = {}
        path = [name]
        schema = command
        nest: list[JSON] = []
        top: list[JSON] = nest
        for part in (sub or "").split():
            child = next((o for o in schema.get("options", []) if o["name"] == part and o["type"] in (1, 2)), None)
            if child is None:
                raise SimError(f"/{' '.join(path)} has no subcommand {part!r}")
            path.append(part)
            inner: list[JSON] = []
            nest.append({"name": part, "type": child["type"], "options": inner})
            nest, schema = inner, child
        if any(o["type"] in (1, 2) for o in schema.get("options", [])):
            raise SimError(f"/{' '.join(path)} needs a subcommand")
        known = {o["name"]: o for o in schema.get("options", [])}
        for key in given:
            if key not in known:
                raise SimError(f"/{' '.join(path)} has no option {key!r}; it has {sorted(known)}")
        if focused is None:
            missing = [o["name"] for o in known.values() if o.get("required") and o["name"] not in given]
            if missing:
                raise SimError(f"/{' '.join(path)} needs {missing}")
        elif focused not in known:
            raise SimError(f"/{' '.join(path)} has no option {focused!r} to autocomplete")
        for key, value in given.items():
            option: JSON = {"name": key, "type": known[key]["type"]}
            if key == focused:
                option.update(value=str(value), focused=True)
            else:
                option["value"] = self._option_value(known[key], value, resolved, channel)
            nest.append(option)
        if focused is not None and focused not in given:
            nest.append({"name": focused, "type": known[focused]["type"], "value": "", "focused": True})
        data: JSON = {"id": command["id"], "name": name, "type": 1, "options": top}
        if command.get("guild_id"):
            data["guild_id"] = command["guild_id"]
        if resolved:
            data["resolved"] = resolved
        return data

    def _option_value(self, schema: JSON, value: Any, resolved: JSON, channel: SimChannel) -> Any:
        """An option's value as Discord sends it, checked against the option's type and choices."""
        kind, name = schema["type"], schema["name"]

        def bad(expected: str) -> SimError:
            return SimError(f"option {name!r} takes {expected}, not {value!r}")

        if kind == 3:
            if not isinstance(value, str):
                raise bad("a string")
        elif kind == 4:
            if not isinstance(value, int) or isinstance(value, bool):
                raise bad("an integer")
        elif kind == 5:
            if not isinstance(value, bool):
                raise bad("a boolean")
        elif kind == 10:
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise bad("a number")
        elif kind == 6:
            if not isinstance(value, SimUser):
                raise bad("a SimUser")
            resolved.setdefault("users", {})[str(value.id)] = value.payload()
            if channel.guild_id is not None:
                resolved.setdefault("members", {})[str(value.id)] = self.member_payload(value, with_user=False)
            return str(value.id)
        elif kind == 7:
            if not isinstance(value, SimChannel):
                raise bad("a SimChannel")
            resolved.setdefault("channels", {})[str(value.id)] = {**value.payload(), "permissions": ALL_PERMISSIONS}
            return str(value.id)
        else:
            raise SimError(f"option type {kind} ({name!r}) is not simulated")
        choices = schema.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            raise SimError(f"option {name!r} must be one of {[c['value'] for c in choices]}, not {value!r}")
        size, low, high = (len(value), "min_length", "max_length") if isinstance(value, str) else (
            value, "min_value", "max_value")
        minimum, maximum = schema.get(low), schema.get(high)
        if (minimum is not None and size < minimum) or (maximum is not None and size > maximum):
            raise SimError(f"option {name!r} must be within {minimum}..{maximum}, not {value!r}")
        return value

    # -- sending interactions and waiting for answers ---------------------------------------------

    def inject(self, payload: JSON, client: discord.Client | None = None) -> int:
        """Send an INTERACTION_CREATE to the bot; returns the interaction id (the 3 s start now)."""
        iid = int(payload["id"])
        user = payload.get("member", {}).get("user") or payload["user"]
        message = payload.get("message")
        self.interactions[iid] = InteractionRecord(
            id=iid, token=payload["token"], type=int(payload["type"]), payload=copy.deepcopy(payload),
            user_id=int(user["id"]), channel_id=int(payload["channel_id"]), sent_at=time.monotonic(),
            clicked_message_id=int(message["id"]) if message else None)
        self.dispatch("INTERACTION_CREATE", payload, client)
        return iid

    async def invoke(self, payload: JSON, *, timeout: float = 5.0) -> SimMessage:
        """``inject`` then ``reply``: the message answering the interaction."""
        return await self.reply(self.inject(payload), timeout=timeout)

    async def wait_for(self, predicate: Callable[[], Any], *, timeout: float = 5.0, what: str = "a condition") -> Any:
        """Wait until ``predicate()`` returns something truthy (and return it); SimError after ``timeout``
        seconds, listing the errors discord.py logged meanwhile."""
        deadline = time.monotonic() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise SimError(f"timed out after {timeout} s waiting for {what}{self._error_report()}")
            changed = self._changed
            with contextlib.suppress(TimeoutError):  # woken by a request, or every 50 ms for a condition
                await asyncio.wait_for(changed.wait(), min(remaining, 0.05))  # on something else (a log)

    def _error_report(self) -> str:
        """The errors logged so far, for a timeout message."""
        if not self.errors:
            return ""
        formatter = logging.Formatter()
        return "\nerrors logged by discord.py:\n" + "\n".join(formatter.format(r) for r in self.errors)

    def _notify(self) -> None:
        """Wake everything waiting in ``wait_for``."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def response(self, interaction_id: int, *, timeout: float = 5.0) -> InteractionRecord:
        """The interaction once the bot has posted its callback (of any type)."""
        record = self.interactions[interaction_id]
        await self.wait_for(lambda: record.callback is not None or record.refusals, timeout=timeout,
                            what=f"the callback to interaction {interaction_id}")
        if record.callback is None:
            raise SimError(f"Discord refused the bot's answer to interaction {interaction_id}: {record.refusals}")
        return record

    async def reply(self, interaction_id: int, *, timeout: float = 5.0) -> SimMessage:
        """The first message that answers the interaction: the response message, or after a defer the
        edited original or first follow-up (as it is now)."""
        return (await self.replies(interaction_id, 1, timeout=timeout))[0]

    async def replies(self, interaction_id: int, count: int, *, timeout: float = 5.0) -> list[SimMessage]:
        """The first ``count`` messages answering the interaction, in order (as they are now)."""
        record = self.interactions[interaction_id]

        def ready() -> bool:
            if record.refusals and len(record.answer_ids) < count:
                raise SimError(f"Discord refused the bot's answer to interaction {interaction_id}: "
                               f"{record.refusals}")
            return len(record.answer_ids) >= count

        await self.wait_for(ready, timeout=timeout, what=f"{count} answer(s) to interaction {interaction_id}")
        return [self._messages[i].snapshot() for i in record.answer_ids[:count]]

    async def choices(self, interaction_id: int, *, timeout: float = 5.0) -> list[JSON]:
        """The autocomplete choices the bot answered with."""
        record = await self.response(interaction_id, timeout=timeout)
        if record.callback_type != AUTOCOMPLETE_RESULT:
            raise SimError(f"interaction {interaction_id} was answered with type {record.callback_type}")
        return list(record.callback_data.get("choices", []))

    def message(self, message_id: int) -> SimMessage:
        """A message as it is now (deleted ones too)."""
        return self._message(message_id).snapshot()

    def channel_messages(self, channel: SimChannel | None = None, *, ephemeral: bool = False) -> list[SimMessage]:
        """The messages of a channel, oldest first, deleted ones left out; ephemeral ones only when asked."""
        channel_id = (channel or self.channel).id
        return [m.snapshot() for _, m in sorted(self._messages.items())
                if int(m.payload["channel_id"]) == channel_id and not m.deleted
                and (ephemeral or not int(m.payload.get("flags") or 0) & EPHEMERAL)]

    async def wait_for_message(self, predicate: Callable[[SimMessage], bool] = lambda m: True, *,
                               channel: SimChannel | None = None, timeout: float = 5.0) -> SimMessage:
        """The first (oldest) visible message of the channel satisfying ``predicate``, waiting for it."""
        def find() -> SimMessage | None:
            return next((m for m in self.channel_messages(channel) if predicate(m)), None)

        found: SimMessage = await self.wait_for(find, timeout=timeout, what="a channel message")
        return found

    def requests_to(self, pattern: str, method: str | None = None) -> list[RecordedRequest]:
        """The recorded requests whose path matches the regular expression ``pattern``."""
        return [r for r in self.requests if re.search(pattern, r.path) and (method is None or r.method == method)]

    # -- HTTP -------------------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        """Record the request and route it."""
        payload: Any = None
        files: list[Upload] = []
        if request.content_type.startswith("multipart/"):
            reader = await request.multipart()
            async for part in reader:
                if not isinstance(part, BodyPartReader):
                    continue
                if part.name == "payload_json":
                    payload = json.loads(await part.text())
                else:
                    files.append(Upload(part.name or "", part.filename or "", bytes(await part.read()),
                                        part.headers.get("Content-Type")))
        elif request.can_read_body:
            raw = await request.read()
            payload = json.loads(raw) if raw else None
        path = request.path[len(API_PREFIX):] if request.path.startswith(API_PREFIX) else request.path
        peer = request.transport.get_extra_info("peername") if request.transport else None
        recorded = RecordedRequest(request.method, path, dict(request.query), payload, tuple(files),
                                   peer[0] if peer else None, request.host, time.monotonic())
        self.requests.append(recorded)
        try:
            if request.path.startswith("/attachments/") and request.method == "GET":
                return self._get_attachment(request)
            if not request.path.startswith(API_PREFIX):
                raise _HTTPError(404, 0, "404: Not Found")
            if not path.startswith(("/interactions/", "/webhooks/")) and (
                    request.headers.get("Authorization") != f"Bot {self.token}"):
                raise _HTTPError(401, 0, "401: Unauthorized")
            for method, pattern, handler in self._routes:
                match = pattern.fullmatch(path)
                if match and method == request.method:
                    return await handler(recorded, match)
            self.unhandled.append(recorded)
            raise _HTTPError(404, 0, f"the simulator does not implement {request.method} {path}")
        except _HTTPError as err:
            return _json_response({"message": err.message, "code": err.code}, err.status)
        finally:
            self._notify()

    def _get_attachment(self, request: web.Request) -> web.Response:
        """An attachment's bytes, as the CDN serves them."""
        found = self._files.get(request.path)
        if found is None:
            return web.Response(status=404)
        return web.Response(body=found.data, content_type=found.content_type or "application/octet-stream")

    async def _get_me(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """The bot user (login)."""
        return _json_response(self.bot_user.payload())

    async def _get_application(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """The application (login asks for it)."""
        owner = next(iter(self.users.values()))
        return _json_response({
            "id": str(self.application_id), "name": self.bot_user.name, "description": "", "icon": None,
            "bot_public": False, "bot_require_code_grant": False, "owner": owner.payload(), "team": None,
            "verify_key": "0" * 64, "flags": 0, "bot": self.bot_user.payload(),
        })

    async def _get_user(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """A user."""
        user = self.users.get(int(match[1])) or (self.bot_user if int(match[1]) == self.bot_user.id else None)
        if user is None:
            raise _HTTPError(404, 10013, "Unknown User")
        return _json_response(user.payload())

    async def _open_dm(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """Open (or find) the DM channel with a user."""
        user = self.users.get(int(request.body.get("recipient_id", 0)))
        if user is None:
            raise _HTTPError(400, 50007, "Cannot send messages to this user")
        return _json_response(self.dm_channel(user).payload() | {"recipients": [user.payload()]})

    def _check_app(self, app_id: str) -> None:
        """404 unless ``app_id`` is the simulated application."""
        if int(app_id) != self.application_id:
            raise _HTTPError(404, 10002, "Unknown Application")

    async def _get_commands(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """The registered commands of one scope."""
        self._check_app(match[1])
        scope = int(match[2]) if match.lastindex and match.lastindex >= 2 else None
        return _json_response(self.commands.get(scope, []))

    async def _put_commands(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """Bulk overwrite: the bot's command tree replaces the scope's commands (ids kept by name)."""
        self._check_app(match[1])
        scope = int(match[2]) if match.lastindex and match.lastindex >= 2 else None
        if scope is not None and scope not in self.guilds:
            raise _HTTPError(403, 50001, "Missing Access")
        body = request.json
        if not isinstance(body, list):
            raise _HTTPError(400, 50035, "Invalid Form Body: expected a list of commands")
        problems = [p for i, c in enumerate(body) for p in _command_problems(c, f"{i}")]
        problems += [f"{i}: /{c.get('name')} has {n} characters of names, descriptions and values, "
                     f"over {COMMAND_TEXT_LIMIT}"
                     for i, c in enumerate(body) if (n := _command_text(c)) > COMMAND_TEXT_LIMIT]
        names = [(c.get("name"), c.get("type", 1)) for c in body]
        if len(names) != len(set(names)):
            problems.append("two commands have the same name and type")
        if problems:
            raise _HTTPError(400, 50035, "Invalid Form Body: " + "; ".join(problems))
        old = {(c["name"], c.get("type", 1)): c["id"] for c in self.commands.get(scope, [])}
        registered = []
        for c in body:
            command = copy.deepcopy(c)
            command.update(id=old.get((c["name"], c.get("type", 1))) or str(self.snowflake()),
                           application_id=str(self.application_id), version=str(self.snowflake()))
            command.setdefault("type", 1)
            command.setdefault("default_member_permissions", None)
            command.setdefault("options", [])
            if scope is not None:
                command["guild_id"] = str(scope)
            registered.append(command)
        self.commands[scope] = registered
        return _json_response(registered)

    # -- interactions -----------------------------------------------------------------------------

    def _record(self, interaction_id: int, token: str) -> InteractionRecord:
        """The interaction with this id and token; 404 Unknown interaction otherwise."""
        record = self.interactions.get(interaction_id)
        if record is None or record.token != token:
            raise _HTTPError(404, 10062, "Unknown interaction")
        return record

    def _by_token(self, app_id: str, token: str) -> InteractionRecord:
        """The interaction whose webhook token this is; 404 Unknown Webhook otherwise."""
        self._check_app(app_id)
        for record in self.interactions.values():
            if record.token == token:
                return record
        raise _HTTPError(404, 10015, "Unknown Webhook")

    @staticmethod
    @contextlib.contextmanager
    def _noting_refusals(record: InteractionRecord) -> Iterator[None]:
        """Note on the interaction every error response Discord gives the bot about it."""
        try:
            yield
        except _HTTPError as err:
            record.refusals.append(err.message)
            raise

    async def _callback(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """The interaction response: once per interaction, within the deadline, of an allowed type."""
        record = self._record(int(match[1]), match[2])
        with self._noting_refusals(record):
            body = request.body
            kind = int(body.get("type", 0))
            elapsed = request.at - record.sent_at
            if record.callback is not None:
                raise _HTTPError(400, 40060, "Interaction has already been acknowledged.")
            if elapsed > self.response_deadline:
                raise _HTTPError(404, 10062, f"Unknown interaction (answered after {elapsed:.2f} s, "
                                             f"over the {self.response_deadline} s Discord allows)")
            if kind not in ALLOWED_CALLBACKS.get(record.type, frozenset()):
                raise _HTTPError(400, 50035, f"Invalid Form Body: callback type {kind} is not allowed "
                                             f"for interaction type {record.type}")
            data: JSON = body["data"] if isinstance(body.get("data"), dict) else {}
            problems: list[str] = []
            if kind in (MESSAGE, UPDATE_MESSAGE):
                problems = _message_problems(data, request.files, new=kind == MESSAGE)
            elif kind == AUTOCOMPLETE_RESULT:
                problems = _choice_problems(data.get("choices"))
            if problems:
                raise _HTTPError(400, 50035, "Invalid Form Body: " + "; ".join(problems))
            if kind in (UPDATE_MESSAGE, DEFERRED_UPDATE) and record.clicked_message_id is None:
                raise _HTTPError(400, 40004, "there is no message to update: the interaction came from a command")
            stored: _Stored | None = None
            if kind in (MESSAGE, DEFERRED_MESSAGE):
                flags = int(data.get("flags") or 0) & (EPHEMERAL | COMPONENTS_V2)
                stored = self._create_message(record.channel_id, data, request.files, interaction=record,
                                              flags=flags | (LOADING if kind == DEFERRED_MESSAGE else 0))
                record.original_id = int(stored.payload["id"])
            elif kind in (UPDATE_MESSAGE, DEFERRED_UPDATE):
                if kind == UPDATE_MESSAGE:
                    stored = self._edit_message(self._message(record.clicked_message_id or 0), data, request.files)
                record.original_id = record.clicked_message_id
            if kind in (MESSAGE, UPDATE_MESSAGE) and stored is not None:
                record.answer_ids.append(int(stored.payload["id"]))
            record.callback = copy.deepcopy(body)
            record.answered_after = elapsed
            info: JSON = {"id": str(record.id), "type": record.type}
            resource: JSON = {"type": kind}
            if stored is not None:
                info.update(response_message_id=stored.payload["id"], response_message_loading=kind == DEFERRED_MESSAGE,
                            response_message_ephemeral=bool(int(stored.payload["flags"]) & EPHEMERAL))
                resource["message"] = stored.payload
            result: JSON = {"interaction": info, "resource": resource}
            return _json_response(result)

    async def _followup(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """A follow-up message; after a deferred response the first one fills the "thinking" message."""
        record = self._by_token(match[1], match[2])
        with self._noting_refusals(record):
            if record.callback is None:
                raise _HTTPError(404, 10015, "Unknown Webhook (the interaction was not answered yet)")
            data = request.body
            problems = _message_problems(data, request.files, new=True)
            if problems:
                raise _HTTPError(400, 50035, "Invalid Form Body: " + "; ".join(problems))
            original = self._messages.get(record.original_id or 0)
            if original is not None and int(original.payload["flags"]) & LOADING:
                stored = self._edit_message(original, data, request.files)
            else:
                stored = self._create_message(record.channel_id, data, request.files, interaction=record,
                                              flags=int(data.get("flags") or 0) & (EPHEMERAL | COMPONENTS_V2))
            if int(stored.payload["id"]) not in record.answer_ids:
                record.answer_ids.append(int(stored.payload["id"]))
            return _json_response(stored.payload)

    def _webhook_message(self, record: InteractionRecord, which: str) -> _Stored:
        """``@original`` or a follow-up of the interaction."""
        message_id = record.original_id if which == "@original" else int(which)
        stored = self._messages.get(message_id or 0)
        if stored is None or stored.deleted or (which != "@original" and message_id not in record.answer_ids):
            raise _HTTPError(404, 10008, "Unknown Message")
        return stored

    async def _get_webhook_message(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """Fetch ``@original`` or a follow-up."""
        return _json_response(self._webhook_message(self._by_token(match[1], match[2]), match[3]).payload)

    async def _edit_webhook_message(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """Edit ``@original`` or a follow-up."""
        record = self._by_token(match[1], match[2])
        with self._noting_refusals(record):
            stored = self._webhook_message(record, match[3])
            data = request.body
            problems = _message_problems(data, request.files, new=False)
            if problems:
                raise _HTTPError(400, 50035, "Invalid Form Body: " + "; ".join(problems))
            self._edit_message(stored, data, request.files)
            if int(stored.payload["id"]) not in record.answer_ids:
                record.answer_ids.append(int(stored.payload["id"]))
            return _json_response(stored.payload)

    async def _delete_webhook_message(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """Delete ``@original`` or a follow-up."""
        stored = self._webhook_message(self._by_token(match[1], match[2]), match[3])
        stored.deleted = True
        return web.Response(status=204)

    # -- channels and messages --------------------------------------------------------------------

    def _channel(self, channel_id: str | int) -> SimChannel:
        """A channel; 404 Unknown Channel otherwise."""
        channel = self.channels.get(int(channel_id))
        if channel is None:
            raise _HTTPError(404, 10003, "Unknown Channel")
        return channel

    def _message(self, message_id: int) -> _Stored:
        """A stored message; SimError if there is none."""
        stored = self._messages.get(message_id)
        if stored is None:
            raise SimError(f"there is no message {message_id}")
        return stored

    def _channel_message(self, channel_id: str, message_id: str) -> _Stored:
        """A visible message of a channel; 404 Unknown Message otherwise (ephemeral ones included)."""
        self._channel(channel_id)
        stored = self._messages.get(int(message_id))
        if (stored is None or stored.deleted or int(stored.payload["channel_id"]) != int(channel_id)
                or int(stored.payload.get("flags") or 0) & EPHEMERAL):
            raise _HTTPError(404, 10008, "Unknown Message")
        return stored

    async def _get_channel(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """A channel."""
        return _json_response(self._channel(match[1]).payload())

    async def _typing(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """The typing indicator."""
        self._channel(match[1])
        return web.Response(status=204)

    async def _get_channel_messages(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """Channel history, newest first, with ``limit``, ``before``, ``after``."""
        channel = self._channel(match[1])
        messages = [m.payload for m in reversed(self.channel_messages(channel))]
        if "before" in request.query:
            messages = [m for m in messages if int(m["id"]) < int(request.query["before"])]
        if "after" in request.query:
            messages = [m for m in messages if int(m["id"]) > int(request.query["after"])]
            messages = messages[-int(request.query.get("limit", 50)):]
        return _json_response(messages[:min(int(request.query.get("limit", 50)), 100)])

    async def _post_channel_message(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """A message posted by the bot."""
        channel = self._channel(match[1])
        if self.failing_posts > 0:
            self.failing_posts -= 1
            raise _HTTPError(503, 0, "Service Unavailable")
        if channel.guild_id is None and channel.recipient_id in self.closed_dms:
            raise _HTTPError(403, 50007, "Cannot send messages to this user")
        data = request.body
        problems = _message_problems(data, request.files, new=True)
        if data.get("flags") and int(data["flags"]) & EPHEMERAL:
            problems.append("a channel message cannot be ephemeral")
        if problems:
            raise _HTTPError(400, 50035, "Invalid Form Body: " + "; ".join(problems))
        nonce = data.get("nonce")
        if nonce is not None and data.get("enforce_nonce"):  # Discord answers with the first post of that nonce
            first = next((m for m in self._messages.values() if m.payload.get("nonce") == str(nonce)
                          and int(m.payload["channel_id"]) == channel.id), None)
            if first is not None:
                return _json_response(first.payload)
        stored = self._create_message(channel.id, data, request.files)
        if nonce is not None:
            stored.payload["nonce"] = str(nonce)
        return _json_response(stored.payload)

    async def _get_channel_message(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """One message."""
        return _json_response(self._channel_message(match[1], match[2]).payload)

    async def _edit_channel_message(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """Edit one of the bot's messages."""
        stored = self._channel_message(match[1], match[2])
        if int(stored.payload["author"]["id"]) != self.bot_user.id:
            raise _HTTPError(403, 50005, "Cannot edit a message authored by another user")
        data = request.body
        problems = _message_problems(data, request.files, new=False)
        if problems:
            raise _HTTPError(400, 50035, "Invalid Form Body: " + "; ".join(problems))
        return _json_response(self._edit_message(stored, data, request.files).payload)

    async def _delete_channel_message(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """Delete a message."""
        self._channel_message(match[1], match[2]).deleted = True
        return web.Response(status=204)

    async def _get_guild(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """A guild."""
        guild = self.guilds.get(int(match[1]))
        if guild is None:
            raise _HTTPError(404, 10004, "Unknown Guild")
        payload = self.guild_payload(guild)
        for key in ("channels", "members", "threads", "voice_states", "presences"):
            payload.pop(key)
        return _json_response(payload)

    async def _get_member(self, request: RecordedRequest, match: re.Match[str]) -> web.Response:
        """A guild member."""
        if int(match[1]) not in self.guilds:
            raise _HTTPError(404, 10004, "Unknown Guild")
        user = self.users.get(int(match[2]))
        if user is None:
            raise _HTTPError(404, 10007, "Unknown Member")
        return _json_response(self.member_payload(user))

    def _attachments(self, channel_id: int, data: JSON, files: Sequence[Upload],
                     existing: Sequence[SimAttachment] = ()) -> list[SimAttachment]:
        """The attachments a create or edit results in: the kept ones listed in ``data["attachments"]``
        by id, and the uploaded ``files[n]`` (listed there by index n, or all when there is no list)."""
        uploads = {int(m[1]): f for f in files if (m := re.search(r"\[(\d+)\]", f.field))}
        by_id = {a.id: a for a in existing}
        listed = data.get("attachments")
        if listed is None:
            entries: list[JSON] = [{"id": a.id} for a in existing] + [{"id": i} for i in sorted(uploads)]
        else:
            entries = list(listed)
        result = []
        for entry in entries:
            key = int(entry["id"])
            if key in by_id:
                result.append(by_id[key])
            elif key in uploads:
                upload = uploads[key]
                attachment_id = self.snowflake()
                filename = str(entry.get("filename") or upload.filename)
                path = f"/attachments/{channel_id}/{attachment_id}/{filename}"
                content_type = _content_type(filename, upload.content_type)
                attachment = SimAttachment(attachment_id, filename, upload.data, content_type, self.url + path,
                                        entry.get("description"))
                self._files[path] = attachment
                result.append(attachment)
            else:
                raise _HTTPError(400, 50035, f"Invalid Form Body: attachment {key} is neither kept nor uploaded")
        return result

    def _create_message(self, channel_id: int, data: JSON, files: Sequence[Upload], *,
                        interaction: InteractionRecord | None = None, flags: int | None = None) -> _Stored:
        """Store a new message by the bot."""
        message_id = self.snowflake()
        attachments = self._attachments(channel_id, data, files)
        channel = self._channel(channel_id)
        payload: JSON = {
            "id": str(message_id), "channel_id": str(channel_id), "author": self.bot_user.payload(),
            "content": data.get("content") or "", "timestamp": _iso(time.time()), "edited_timestamp": None,
            "tts": bool(data.get("tts")), "mention_everyone": False, "mentions": self._mentions(data),
            "mention_roles": [], "attachments": [a.payload() for a in attachments],
            "embeds": data.get("embeds") or [], "components": data.get("components") or [], "pinned": False,
            "type": 0, "flags": int(data.get("flags") or 0) if flags is None else flags,
        }
        if channel.guild_id is not None:
            payload["guild_id"] = str(channel.guild_id)
        if interaction is not None:
            user = self.users.get(interaction.user_id)
            payload.update(type=20 if interaction.type == APPLICATION_COMMAND else 19,
                           webhook_id=str(self.application_id), application_id=str(self.application_id),
                           interaction_metadata={
                               "id": str(interaction.id), "type": interaction.type,
                               "user": (user or self.bot_user).payload(),
                               "authorizing_integration_owners": interaction.payload.get(
                                   "authorizing_integration_owners", {})})
        stored = _Stored(payload, attachments, interaction.id if interaction else None)
        self._messages[message_id] = stored
        return stored

    def _edit_message(self, stored: _Stored, data: JSON, files: Sequence[Upload]) -> _Stored:
        """Apply an edit (content, embeds, components, attachments; the "thinking" state ends), or raise
        and change nothing if Discord would refuse it."""
        payload = copy.deepcopy(stored.payload)
        for key, empty in (("content", ""), ("embeds", []), ("components", [])):
            if key in data:
                payload[key] = data[key] if data[key] is not None else empty
        if "content" in data:
            payload["mentions"] = self._mentions(data)
        attachments = stored.attachments
        if "attachments" in data or files:
            attachments = self._attachments(int(payload["channel_id"]), data, files, stored.attachments)
            payload["attachments"] = [a.payload() for a in attachments]
        flags = int(payload.get("flags") or 0)
        if "flags" in data and data["flags"] is not None:  # Components V2, once set, stays
            flags = (flags & (EPHEMERAL | COMPONENTS_V2)) | (int(data["flags"]) & ~(EPHEMERAL | LOADING))
        payload["flags"] = flags & ~LOADING
        if flags & COMPONENTS_V2 and (payload["content"] or payload["embeds"]):
            raise _HTTPError(400, 50035, "Invalid Form Body: a Components V2 message cannot have content or embeds")
        if flags & COMPONENTS_V2:
            problems = _v2_problems({**data, "content": None, "attachments": [a.payload() for a in attachments]},
                                    payload["components"], files)
            if problems:
                raise _HTTPError(400, 50035, "Invalid Form Body: " + "; ".join(problems))
        payload["edited_timestamp"] = _iso(time.time())
        if not (payload["content"] or payload["embeds"] or payload["components"] or attachments):
            raise _HTTPError(400, 50006, "Cannot send an empty message")
        stored.payload, stored.attachments = payload, attachments
        stored.edits += 1
        return stored

    def _mentions(self, data: JSON) -> list[JSON]:
        """The users mentioned in the content (or the text displays of a Components V2 message)."""
        text = " ".join([str(data.get("content") or ""), *text_displays(data.get("components") or [])])
        ids = [int(i) for i in re.findall(r"<@!?(\d+)>", text)]
        return [self.users[i].payload() for i in dict.fromkeys(ids) if i in self.users]


# ---------------------------------------------------------------------------------------------
# Discord's checks


def _content_type(filename: str, sent: str | None) -> str | None:
    """The content type Discord would report for an upload."""
    lower = filename.lower()
    for ext, kind in ((".png", "image/png"), (".jpg", "image/jpeg"), (".jpeg", "image/jpeg"),
                      (".gif", "image/gif"), (".txt", "text/plain; charset=utf-8"), (".json", "application/json"),
                      (".webp", "image/webp"), (".html", "text/html; charset=utf-8")):
        if lower.endswith(ext):
            return kind
    return sent


def _message_problems(data: JSON, files: Sequence[Upload], *, new: bool) -> list[str]:
    """What Discord would refuse in a message body."""
    problems = []
    content = data.get("content")
    if content is not None and len(str(content)) > 2000:
        problems.append(f"content: {len(str(content))} characters, over 2000")
    embeds = data.get("embeds") or []
    if len(embeds) > 10:
        problems.append("embeds: more than 10")
    for i, embed in enumerate(embeds):
        if len(str(embed.get("title") or "")) > 256 or len(str(embed.get("description") or "")) > 4096:
            problems.append(f"embeds.{i}: title over 256 or description over 4096 characters")
        if len(embed.get("fields") or []) > 25:
            problems.append(f"embeds.{i}: more than 25 fields")
    components = data.get("components") or []
    v2 = bool(int(data.get("flags") or 0) & COMPONENTS_V2)
    if v2:
        problems += _v2_problems(data, components, files)
    else:
        if len(components) > 5:
            problems.append("components: more than 5 action rows")
        for i, row in enumerate(components):
            if row.get("type") != 1:
                problems.append(f"components.{i}: top-level components must be action rows")
            else:
                problems += [f"components.{i}: {p}" for p in _row_problems(row)]
    ids = [c["custom_id"] for c in _walk_components(components) if "custom_id" in c]
    problems += [f"custom_id {i!r}: over 100 characters" for i in ids if len(i) > 100]
    if len(ids) != len(set(ids)):
        problems.append("components: custom_ids must be unique")
    for f in files:
        if len(f.data) > FILE_SIZE_LIMIT:
            problems.append(f"file {f.filename!r}: {len(f.data)} bytes, over the {FILE_SIZE_LIMIT} limit")
    total = sum(len(f.data) for f in files)
    if len(files) > 1 and total > FILE_SIZE_LIMIT:  # the upload limit is the request's, all files together
        problems.append(f"files: {total} bytes together, over the {FILE_SIZE_LIMIT} a message may carry")
    if len(files) > 10:
        problems.append(f"files: {len(files)}, over the 10 a message may carry")
    if new and not (content or embeds or components or files or data.get("poll") or data.get("sticker_ids")):
        problems.append("Cannot send an empty message")
    return problems


def _row_problems(row: JSON) -> list[str]:
    """An action row holds up to 5 buttons, or one select menu alone."""
    children = row.get("components") or []
    if len(children) > 5:
        return ["an action row has more than 5 components"]
    if any(c.get("type") in SELECTS for c in children) and len(children) > 1:
        return ["a select menu must be alone in its action row"]
    return []


def _v2_problems(data: JSON, components: Sequence[JSON], files: Sequence[Upload]) -> list[str]:
    """What Discord refuses in a Components V2 message: content or embeds beside the components, more
    than 40 components, more than 4000 characters of text, galleries of 0 or over 10 items, a gallery
    item naming a file the message does not carry, a row of over 5 buttons."""
    problems = []
    if data.get("content") or data.get("embeds"):
        problems.append("a Components V2 message cannot have content or embeds")
    every = list(_walk_components(components))
    if len(every) > 40:
        problems.append(f"components: {len(every)}, over 40")
    problems += [f"components.{i}: type {c.get('type')} cannot be at the top level"
                 for i, c in enumerate(components) if c.get("type") not in V2_TOP_LEVEL]
    text = sum(len(t) for t in text_displays(components))
    if text > 4000:
        problems.append(f"text displays: {text} characters, over 4000")
    names = {f.filename for f in files} | {str(a.get("filename")) for a in data.get("attachments") or []}
    for c in every:
        if c.get("type") == ACTION_ROW:
            problems += _row_problems(c)
        if c.get("type") == MEDIA_GALLERY:
            items = c.get("items") or []
            if not 1 <= len(items) <= 10:
                problems.append(f"a media gallery has {len(items)} items (1 to 10)")
            for item in items:
                url = str(item.get("media", {}).get("url", ""))
                if url.startswith("attachment://") and url.removeprefix("attachment://") not in names:
                    problems.append(f"gallery item {url!r}: no such file in the message")
                if len(str(item.get("description") or "")) > 1024:
                    problems.append("gallery item description over 1024 characters")
    return problems


def _choice_problems(choices: Any) -> list[str]:
    """What Discord would refuse in autocomplete choices."""
    if not isinstance(choices, list):
        return ["choices: a list is required"]
    problems = []
    if len(choices) > 25:
        problems.append(f"choices: {len(choices)}, over 25")
    for i, c in enumerate(choices):
        if not 1 <= len(str(c.get("name", ""))) <= 100:
            problems.append(f"choices.{i}.name: 1 to 100 characters")
        if isinstance(c.get("value"), str) and len(c["value"]) > 100:
            problems.append(f"choices.{i}.value: over 100 characters")
    return problems


def _command_text(command: JSON) -> int:
    """The characters of a command's names, descriptions and choice names and values, nested ones included."""
    total = len(str(command.get("name", ""))) + len(str(command.get("description", "")))
    for choice in command.get("choices") or []:
        total += len(str(choice.get("name", ""))) + len(str(choice.get("value", "")))
    return total + sum(_command_text(o) for o in command.get("options") or [])


def _command_problems(command: JSON, where: str, *, option: bool = False) -> list[str]:
    """What Discord would refuse in an application command, or (``option``) in an option of one."""
    problems = []
    name = str(command.get("name", ""))
    if option or command.get("type", 1) == 1:  # chat input names and descriptions are constrained
        if not COMMAND_NAME.match(name) or name != name.lower():
            problems.append(f"{where}.name {name!r}: 1 to 32 lowercase letters, digits, - or _")
        if not 1 <= len(str(command.get("description", ""))) <= 100:
            problems.append(f"{where}.description of {name!r}: 1 to 100 characters")
    elif not 1 <= len(name) <= 32:
        problems.append(f"{where}.name {name!r}: 1 to 32 characters")
    options = command.get("options") or []
    if len(options) > 25:
        problems.append(f"{where}.options of {name!r}: {len(options)}, over 25")
    seen_optional = False
    for i, child in enumerate(options):
        if child.get("type") not in (1, 2):
            if child.get("required") and seen_optional:
                problems.append(f"{where}.options.{i} {child.get('name')!r}: required options must come first")
            seen_optional = seen_optional or not child.get("required")
        if len(child.get("choices") or []) > 25:
            problems.append(f"{where}.options.{i}: more than 25 choices")
        problems += _command_problems(child, f"{where}.options.{i}", option=True)
    return problems
