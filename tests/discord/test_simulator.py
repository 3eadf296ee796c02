"""The Discord simulator, proved with a small test-only bot: an ephemeral reply, a deferred reply with
a PNG, autocomplete, a board posted in the channel whose DynamicItem button still answers after a
restart, Discord's refusals (late answers, oversized messages, commands never synced), and nothing
sent anywhere but 127.0.0.1."""

from __future__ import annotations

import asyncio
import io
import re
import socket
from types import SimpleNamespace
from typing import Any, Literal

import aiohttp
import discord
import pytest
from discord import app_commands
from PIL import Image

from tests.support.discord_sim import EPHEMERAL, DiscordSim, SimError, loopback_only

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CELLS = ["A1", "A2", "B1", "B2", "B3", "C1"]


def board_png() -> bytes:
    """A tiny PNG standing in for a board picture."""
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(buffer, "PNG")
    return buffer.getvalue()


class HandButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                 template=r"hand:(?P<game>\d+):v:(?P<version>\d+)"):
    """The persistent "My hand" button: its custom_id carries the game and version, nothing else."""

    def __init__(self, game_id: int, version: int) -> None:
        super().__init__(discord.ui.Button(label="My hand", style=discord.ButtonStyle.primary,
                                           custom_id=f"hand:{game_id}:v:{version}"))
        self.game_id = game_id
        self.version = version

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> HandButton:
        """Rebuild the button from a click."""
        return cls(int(match["game"]), int(match["version"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Answer privately, naming the bot instance that answered."""
        await interaction.response.send_message(
            f"{interaction.user.name}'s hand in game {self.game_id} v{self.version} "
            f"(instance {interaction.client.instance})", ephemeral=True)


def board_view(game_id: int, version: int) -> discord.ui.View:
    """A view holding only the hand button."""
    view = discord.ui.View(timeout=None)
    view.add_item(HandButton(game_id, version))
    return view


class CounterView(discord.ui.View):
    """An ordinary (not persistent) view: its button updates the message it is on."""

    def __init__(self) -> None:
        super().__init__(timeout=60)

    @discord.ui.button(label="+1", custom_id="counter:add")
    async def add(self, interaction: discord.Interaction[Any], button: discord.ui.Button[CounterView]) -> None:
        """Count one more."""
        assert interaction.message is not None
        await interaction.response.edit_message(content=str(int(interaction.message.content) + 1))


def tiempo_group() -> app_commands.Group:
    """A miniature /tiempo group."""
    group = app_commands.Group(name="tiempo", description="Play Khronos")

    @group.command(description="Check that the bot answers")
    async def ping(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("pong", ephemeral=True)

    @group.command(description="Show a game's board to everyone")
    async def board(interaction: discord.Interaction[Any], game: int) -> None:
        await interaction.response.defer(thinking=True)
        png = await asyncio.to_thread(board_png)
        await interaction.followup.send(f"Board of game {game}", file=discord.File(io.BytesIO(png), "board.png"),
                                        view=board_view(game, 3))

    @group.command(description="Post a game's board in the channel")
    async def post(interaction: discord.Interaction[Any], game: int) -> None:
        await interaction.response.send_message("Posted.", ephemeral=True)
        assert isinstance(interaction.channel, discord.TextChannel)
        message = await interaction.channel.send(f"Game {game}, turn 1",
                                                 file=discord.File(io.BytesIO(board_png()), "game.png"),
                                                 view=board_view(game, 1))
        await message.edit(content=f"Game {game}, turn 1 (edited)")

    @group.command(description="Build somewhere")
    @app_commands.describe(cell="Where to build", age="On which board")
    async def build(interaction: discord.Interaction[Any], cell: str, age: Literal["M", "F", "R"] = "M") -> None:
        await interaction.response.send_message(f"build {cell} on {age}", ephemeral=True)

    @build.autocomplete("cell")
    async def cell_choices(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=c, value=c) for c in CELLS if c.startswith(current.upper())]

    @group.command(description="Answer, edit the answer, then follow up privately")
    async def count(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("1")
        await interaction.edit_original_response(content="2")
        await interaction.followup.send("3", ephemeral=True)

    @group.command(description="A counter whose button edits its own message")
    async def counter(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("0", view=CounterView())

    @group.command(description="Remind me by DM, then read back the channel")
    async def remind(interaction: discord.Interaction[Any]) -> None:
        await interaction.user.send("It is your turn.")
        assert isinstance(interaction.channel, discord.TextChannel)
        history = [m async for m in interaction.channel.history(limit=10)]
        newest = await interaction.channel.fetch_message(history[0].id)
        await newest.delete()
        await interaction.response.send_message(f"{len(history)} messages; deleted {newest.content!r}",
                                                ephemeral=True)

    @group.command(description="Answer too slowly")
    async def slow(interaction: discord.Interaction[Any]) -> None:
        await asyncio.sleep(0.3)
        await interaction.response.send_message("too late")

    @group.command(description="A Components V2 layout: words and a gallery of pictures")
    async def gallery(interaction: discord.Interaction[Any], missing: bool = False) -> None:
        view = discord.ui.LayoutView()
        names = ("a.png", "b.png")
        items = [discord.MediaGalleryItem(f"attachment://{'c.png' if missing else n}") for n in names]
        view.add_item(discord.ui.Container(discord.ui.TextDisplay("Two boards"), discord.ui.MediaGallery(*items)))
        files = [discord.File(io.BytesIO(board_png()), n) for n in names]
        await interaction.response.send_message(view=view, files=files)

    @group.command(description="Answer in words, then turn the answer into a layout")
    async def relayout(interaction: discord.Interaction[Any], keep_words: bool = False) -> None:
        await interaction.response.send_message("old words")
        view = discord.ui.LayoutView()
        view.add_item(discord.ui.Container(discord.ui.TextDisplay("new words")))
        if keep_words:  # the old content stays: Discord refuses the layout
            await interaction.edit_original_response(view=view)
        else:
            await interaction.edit_original_response(content=None, view=view)

    @group.command(description="Post the same announcement twice, as a resend after a crash would")
    async def twice(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("Posting.", ephemeral=True)
        assert isinstance(interaction.channel, discord.TextChannel)
        for _ in range(2):
            await interaction.channel.send("Ana builds a Keep.", nonce="tiempo-7")

    @group.command(description="Say too much")
    async def shout(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("A" * 2001)

    return group


class MiniBot(discord.Client):
    """A bot shaped like Tiempo's: one guild-synced /tiempo group, dynamic items registered at set-up."""

    def __init__(self, guild_id: int, instance: int, trace: aiohttp.TraceConfig | None = None) -> None:
        super().__init__(intents=discord.Intents.default(), http_trace=trace or aiohttp.TraceConfig())
        self.guild_id = guild_id
        self.instance = instance
        self.tree = app_commands.CommandTree(self)
        self.tree.add_command(tiempo_group(), guild=discord.Object(guild_id))

    async def setup_hook(self) -> None:
        """Register the persistent button and sync the commands to the guild."""
        self.add_dynamic_items(HandButton)
        await self.tree.sync(guild=discord.Object(self.guild_id))


def url_recorder() -> tuple[aiohttp.TraceConfig, list[str]]:
    """A trace config noting the URL of every request a client session makes."""
    urls: list[str] = []
    trace = aiohttp.TraceConfig()

    async def on_start(session: Any, context: Any, params: aiohttp.TraceRequestStartParams) -> None:
        urls.append(str(params.url))

    trace.on_request_start.append(on_start)
    return trace, urls


async def test_slash_command_with_an_ephemeral_reply(discord_sim: DiscordSim) -> None:
    sim = discord_sim
    await sim.connect(MiniBot(sim.guild.id, 1))
    assert [c["name"] for c in sim.commands[sim.guild.id]] == ["tiempo"]
    iid = sim.inject(sim.slash("tiempo", "ping"))
    reply = await sim.reply(iid)
    assert (reply.content, reply.ephemeral) == ("pong", True)
    record = sim.interactions[iid]
    assert record.callback_type == 4 and record.answered_after is not None and record.answered_after < 3
    (callback,) = sim.requests_to(rf"^/interactions/{iid}/[^/]+/callback$", "POST")
    assert (callback.flags, callback.ephemeral, callback.content) == (EPHEMERAL, True, "pong")
    assert sim.channel_messages() == []  # only alice sees it
    assert [m.id for m in sim.channel_messages(ephemeral=True)] == [reply.id]


def test_members_are_ordinary_but_the_servers_owner_and_a_manager_may_manage_its_channels(
        discord_sim: DiscordSim) -> None:
    """The stand-in's interactions carry each member's permissions as Discord computes them: the first
    user owns the server; a member added later is an ordinary one unless made a manager."""
    from bot.discord.context import caller_of

    sim = discord_sim
    bob, dora = sim.add_user("bob"), sim.add_user("dora", manager=True)
    for user, manages in ((sim.user, True), (bob, False), (dora, True)):
        perms = discord.Permissions(int(sim.member_payload(user)["permissions"]))  # (what an interaction carries)
        assert (perms.manage_channels or perms.administrator) is manages, user.name
        assert perms.send_messages and perms.use_application_commands
        interaction = SimpleNamespace(permissions=perms, guild_id=sim.guild.id, channel_id=sim.channel.id,
                                      user=SimpleNamespace(id=user.id, display_name=user.name))
        assert caller_of(interaction).can_manage is manages  # type: ignore[arg-type]


async def test_deferred_reply_with_a_png_and_a_button(discord_sim: DiscordSim) -> None:
    sim = discord_sim
    await sim.connect(MiniBot(sim.guild.id, 1))
    iid = sim.inject(sim.slash("tiempo", "board", {"game": 42}))
    reply = await sim.reply(iid)
    assert sim.interactions[iid].callback_type == 5  # deferred, "thinking"
    assert (reply.content, reply.ephemeral, reply.loading) == ("Board of game 42", False, False)
    assert reply.filenames == ["board.png"]
    assert reply.attachments[0].data.startswith(PNG_SIGNATURE)
    assert reply.attachments[0].content_type == "image/png"
    assert reply.custom_ids() == ["hand:42:v:3"] and reply.custom_id("My hand") == "hand:42:v:3"
    (followup,) = sim.requests_to(r"^/webhooks/\d+/[^/]+$", "POST")
    assert followup.attachments == ["board.png"] and followup.files[0].data == reply.attachments[0].data
    assert followup.components[0]["components"][0]["custom_id"] == "hand:42:v:3"
    assert [m.id for m in sim.channel_messages()] == [reply.id]  # the thinking message became the board
    async with aiohttp.ClientSession() as session, session.get(reply.attachments[0].url) as download:
        assert await download.read() == reply.attachments[0].data  # the CDN is the simulator too


async def test_a_wrong_token_cannot_log_in(discord_sim: DiscordSim) -> None:
    with pytest.raises(discord.LoginFailure):
        await discord_sim.connect(MiniBot(discord_sim.guild.id, 1), token="not-the-token")


async def test_autocomplete_and_options_follow_the_synced_schema(discord_sim: DiscordSim) -> None:
    sim = discord_sim
    await sim.connect(MiniBot(sim.guild.id, 1))
    iid = sim.inject(sim.autocomplete("tiempo", "build", {"cell": "b"}, "cell"))
    assert [c["value"] for c in await sim.choices(iid)] == ["B1", "B2", "B3"]
    reply = await sim.invoke(sim.slash("tiempo", "build", {"cell": "B2", "age": "F"}))
    assert reply.content == "build B2 on F"
    with pytest.raises(SimError, match="must be one of"):
        sim.slash("tiempo", "build", {"cell": "B2", "age": "X"})
    with pytest.raises(SimError, match=r"needs \['cell'\]"):
        sim.slash("tiempo", "build")
    with pytest.raises(SimError, match="has no option 'kind'"):
        sim.slash("tiempo", "build", {"cell": "B2", "kind": "Keep"})
    with pytest.raises(SimError, match="takes an integer"):
        sim.slash("tiempo", "board", {"game": "42"})
    with pytest.raises(SimError, match="no subcommand 'fly'"):
        sim.slash("tiempo", "fly")
    with pytest.raises(SimError, match="not registered"):
        sim.slash("chess", "move")


async def test_the_hand_button_answers_after_a_restart(discord_sim: DiscordSim) -> None:
    sim = discord_sim
    bob = sim.add_user("bob")
    trace, urls = url_recorder()
    first = await sim.connect(MiniBot(sim.guild.id, 1, trace))
    ack = await sim.invoke(sim.slash("tiempo", "post", {"game": 7}))
    assert (ack.content, ack.ephemeral) == ("Posted.", True)
    board = await sim.wait_for_message(lambda m: m.content.endswith("(edited)"))
    assert (board.content, board.filenames, board.edits) == ("Game 7, turn 1 (edited)", ["game.png"], 1)
    assert board.attachments[0].data.startswith(PNG_SIGNATURE)
    hand = await sim.invoke(sim.click(board.custom_id("My hand"), board, user=bob))
    assert (hand.content, hand.ephemeral) == ("bob's hand in game 7 v1 (instance 1)", True)

    await first.close()  # the process stops; Discord keeps the message and its button
    await sim.connect(MiniBot(sim.guild.id, 2, trace))
    hand = await sim.invoke(sim.click("hand:7:v:1", board, user=bob))
    assert (hand.content, hand.ephemeral) == ("bob's hand in game 7 v1 (instance 2)", True)
    assert [m.id for m in sim.channel_messages()] == [board.id]

    # every request both instances made went to the simulator on 127.0.0.1, and arrived there
    assert urls and all(u.startswith(f"{sim.url}/") and u.startswith("http://127.0.0.1:") for u in urls)
    assert len(urls) == len(sim.requests)
    assert {r.remote for r in sim.requests} == {"127.0.0.1"}
    assert sim.blocked == [] and sim.unhandled == []


async def test_edits_follow_ups_and_component_updates(discord_sim: DiscordSim) -> None:
    sim = discord_sim
    await sim.connect(MiniBot(sim.guild.id, 1))
    iid = sim.inject(sim.slash("tiempo", "count"))
    original, followup = await sim.replies(iid, 2)
    assert (original.content, original.edits, original.ephemeral) == ("2", 1, False)
    assert (followup.content, followup.ephemeral) == ("3", True)
    assert [r.method for r in sim.requests_to(rf"^/webhooks/\d+/{sim.interactions[iid].token}")] == ["PATCH", "POST"]

    counter = await sim.invoke(sim.slash("tiempo", "counter"))
    assert counter.content == "0"
    for expected in ("1", "2"):
        click = sim.inject(sim.click("counter:add", counter))
        updated = await sim.reply(click)
        assert (updated.id, updated.content) == (counter.id, expected)
        assert sim.interactions[click].callback_type == 7  # UPDATE_MESSAGE
        counter = updated
    with pytest.raises(SimError, match="no component 'counter:sub'"):
        sim.click("counter:sub", counter)


async def test_a_components_v2_layout_with_a_gallery_and_what_discord_refuses_in_one(discord_sim: DiscordSim) -> None:
    sim = discord_sim
    await sim.connect(MiniBot(sim.guild.id, 1))
    message = await sim.reply(sim.inject(sim.slash("tiempo", "gallery")))
    assert message.v2 and message.content == "Two boards" and message.gallery() == [["a.png", "b.png"]]
    assert message.filenames == ["a.png", "b.png"]
    with pytest.raises(SimError, match=r"gallery item 'attachment://c\.png': no such file"):
        await sim.reply(sim.inject(sim.slash("tiempo", "gallery", {"missing": True})))


async def test_a_message_becomes_a_layout_only_with_its_words_cleared(discord_sim: DiscordSim) -> None:
    sim = discord_sim
    await sim.connect(MiniBot(sim.guild.id, 1))
    iid = sim.inject(sim.slash("tiempo", "relayout"))
    await sim.wait_for(lambda: sim.message(sim.interactions[iid].answer_ids[0]).edits == 1 if
                       sim.interactions[iid].answer_ids else None, what="the edit")
    message = sim.message(sim.interactions[iid].answer_ids[0])
    assert message.v2 and message.content == "new words" and message.payload["content"] == ""
    iid = sim.inject(sim.slash("tiempo", "relayout", {"keep_words": True}))
    await sim.wait_for(lambda: sim.errors, what="the refused edit")
    assert "cannot have content" in " ".join(r.getMessage() + str(r.exc_info) for r in sim.errors)
    sim.errors.clear()


async def test_a_post_resent_with_its_nonce_is_posted_once(discord_sim: DiscordSim) -> None:
    sim = discord_sim
    await sim.connect(MiniBot(sim.guild.id, 1))
    await sim.invoke(sim.slash("tiempo", "twice"))
    await sim.wait_for(lambda: len(sim.requests_to(r"^/channels/\d+/messages$")) == 2, what="both sends")
    assert [m.content for m in sim.channel_messages()] == ["Ana builds a Keep."]


async def test_dm_history_fetch_and_delete(discord_sim: DiscordSim) -> None:
    sim = discord_sim
    await sim.connect(MiniBot(sim.guild.id, 1))
    for game in (1, 2):
        await sim.invoke(sim.slash("tiempo", "post", {"game": game}))
    boards = ["Game 1, turn 1 (edited)", "Game 2, turn 1 (edited)"]
    await sim.wait_for(lambda: [m.content for m in sim.channel_messages()] == boards, what="both boards")
    reply = await sim.invoke(sim.slash("tiempo", "remind"))
    assert reply.content == "2 messages; deleted 'Game 2, turn 1 (edited)'"
    assert [m.content for m in sim.channel_messages()] == ["Game 1, turn 1 (edited)"]
    (dm,) = sim.channel_messages(sim.dm_channel(sim.user))
    assert dm.content == "It is your turn."


async def test_discord_refuses_late_and_oversized_answers() -> None:
    async with DiscordSim.running(response_deadline=0.1) as sim:
        await sim.connect(MiniBot(sim.guild.id, 1))
        with pytest.raises(SimError, match=r"answered after \d+\.\d+ s, over the 0.1 s"):
            await sim.reply(sim.inject(sim.slash("tiempo", "slow")))
        # discord.py logs the refused answer just after the refusal reached it
        await sim.wait_for(lambda: any("Ignoring exception in command" in r.getMessage() for r in sim.errors),
                           what="discord.py's log of the refused answer")
    async with DiscordSim.running() as sim:
        await sim.connect(MiniBot(sim.guild.id, 1))
        with pytest.raises(SimError, match="2001 characters, over 2000"):
            await sim.reply(sim.inject(sim.slash("tiempo", "shout")))


async def test_a_command_tree_discord_would_reject_is_refused(discord_sim: DiscordSim) -> None:
    sim = discord_sim
    bot = MiniBot(sim.guild.id, 1)
    wordy = app_commands.Group(name="wordy", description="Too much text for Discord")

    @app_commands.describe(a="p" * 100, b="p" * 100, c="p" * 100)
    async def verbose(interaction: discord.Interaction[Any], a: str, b: str, c: str) -> None:
        """Never called."""

    for i in range(25):
        wordy.add_command(app_commands.Command(name=f"c{i}", description="d" * 100, callback=verbose))
    bot.tree.add_command(wordy, guild=discord.Object(sim.guild.id))
    with pytest.raises(discord.HTTPException) as refused:
        await sim.connect(bot)
    assert "over 8000" in refused.value.text
    assert sim.guild.id not in sim.commands  # nothing was registered


def test_the_network_guard_lets_only_loopback_through(monkeypatch: pytest.MonkeyPatch) -> None:
    reached: list[Any] = []

    def fake_connect(self: socket.socket, address: Any) -> None:
        reached.append(address)

    def fake_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> list[Any]:
        reached.append(host)
        return []

    monkeypatch.setattr(socket.socket, "connect", fake_connect)  # no packet leaves, whatever the guard does
    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    blocked: list[str] = []
    with loopback_only(blocked), socket.socket() as sock:
        sock.connect(("127.0.0.1", 9))
        socket.getaddrinfo("localhost", 80)
        with pytest.raises(ConnectionRefusedError):
            sock.connect(("192.0.2.1", 80))
        with pytest.raises(socket.gaierror):
            socket.getaddrinfo("discord.com", 443)
    assert reached == [("127.0.0.1", 9), "localhost"]  # the refused ones never reached the real socket
    assert blocked == ["connect 192.0.2.1:80", "lookup discord.com"]
