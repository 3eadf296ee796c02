"""The Discord front end against the service's command catalogue and its own pieces: /tiempo's
parameters are the catalogue's options, every persistent item reads back the custom id it writes
(also ids written before the items had one base class), names are shown as they are, and a live
message grows only while its words fit whole."""

from __future__ import annotations

import re
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.discord import DYNAMIC_ITEMS, MAX_TEXT, ChannelOutbox, TiempoGroup, markdown
from bot.discord.items import TiempoButton, TiempoSelect, items_of
from bot.discord.sending import DISCORD
from bot.service import (
    CATALOGUE,
    PATHS,
    Answers,
    CancelButton,
    ConfirmButton,
    HandButtons,
    LobbyButtons,
    PanelControls,
    PanelView,
    Person,
    PlayButton,
    Post,
    RematchButton,
    ReplayButton,
    ReplayControls,
    ReplayView,
    Reply,
)
from bot.service.messages import encode_post
from bot.words import Command, Mention, Name, Strong, say, text

OPTION_TYPES = {str: discord.AppCommandOptionType.string, int: discord.AppCommandOptionType.integer,
                bool: discord.AppCommandOptionType.boolean, Person: discord.AppCommandOptionType.user}


def _commands() -> dict[str, app_commands.Command[Any, ..., Any]]:
    group = TiempoGroup()
    out = {}
    for command in group.walk_commands():
        if isinstance(command, app_commands.Group):
            continue
        assert isinstance(command, app_commands.Command)
        out[command.name] = command
    return out


def test_the_tiempo_group_has_the_catalogue_s_commands_and_options() -> None:
    commands = _commands()
    assert sorted(commands) == sorted(CATALOGUE)
    for word, command in commands.items():
        entry = CATALOGUE[word]
        assert command.description == entry.summary, word
        params = command.parameters
        assert [p.name for p in params] == [o.name for o in entry.options], word
        for param, option in zip(params, entry.options, strict=True):
            where = f"/tiempo {word} {option.name}"
            assert param.required == option.required, where
            assert param.type == OPTION_TYPES[option.type], where
            assert [c.value for c in param.choices] == list(option.choices), where
            assert param.description == option.description, where
            assert (param.min_value, param.max_value) == (option.minimum, option.maximum), where
            if not option.required:
                assert param.default == option.default, where


def test_a_command_in_a_subgroup_is_named_by_its_path_in_every_sentence() -> None:
    nested = {c.name: c.qualified_name.removeprefix("tiempo ") for c in TiempoGroup().walk_commands()
              if isinstance(c, app_commands.Command) and c.parent is not None and c.parent.parent is not None}
    assert nested == PATHS == DISCORD.paths
    assert markdown(say("See {profile}.", profile=Command("profile", "player:"))) == \
        "See `/tiempo me profile player:`."


def test_tiempo_is_offered_in_direct_messages_and_to_a_user_install() -> None:
    group = TiempoGroup()
    assert group.allowed_contexts is not None and group.allowed_contexts.dm_channel
    assert group.allowed_installs is not None and group.allowed_installs.user
    assert {w for w, e in CATALOGUE.items() if e.anywhere} == {"games", "profile", "learn", "notify"}


def test_the_catalogue_reads_as_a_console_would_need_it() -> None:
    build = CATALOGUE["build"]
    assert build.usage == "build kind cell [age] [pay]"
    assert build.plays and build.slow and build.examples[0] == "build Keep C4 Might"
    assert build.option("kind").choices[:2] == ("Watchtower", "Keep")
    assert CATALOGUE["travel"].option("to").service_key == "age"
    assert all(e.examples and e.summary for e in CATALOGUE.values())


SAMPLES: dict[str, Any] = {"game": 12, "version": "12-3fa9c2", "cell": "E4", "path": ("build", "KEEP", "M"),
                           "notation": "T1>F", "lesson": "junction", "stage": 1}
SAMPLES.update(role="next", to=5, hands=True)  # a replay's


@pytest.mark.parametrize("item", DYNAMIC_ITEMS, ids=lambda item: item.__name__)
def test_every_persistent_item_reads_back_the_id_it_writes(item: type[TiempoButton | TiempoSelect]) -> None:
    made = item(*(SAMPLES[name] for name in item.fields))
    match = item.__discord_ui_compiled_template__.fullmatch(made.custom_id)
    assert match is not None, made.custom_id
    again = item(*item._values(match))
    assert again.custom_id == made.custom_id
    assert [getattr(again, name) for name in item.fields] == [SAMPLES[name] for name in item.fields]


@pytest.mark.parametrize("custom_id", [
    "tiempo:hand:3", "tiempo:board:3", "tiempo:choose:3:12-3fa9c2:E4", "tiempo:choose:3:12:E4", "tiempo:lobby:3:join",
    "tiempo:lobby:3:leave", "tiempo:lobby:3:start", "tiempo:rematch:3", "tiempo:play:3", "tiempo:sure:3:12-3fa9c2:T1>F",
    "tiempo:cancel:3", "tiempo:pick:3:12-3fa9c2:build.KEEP.M", "tiempo:ok:3:12-3fa9c2:build.KEEP.M.a00.C4",
    "tiempo:back:3:12-3fa9c2:build", "tiempo:go:3:12-3fa9c2:", "tiempo:look:3:12-3fa9c2:", "tiempo:undo:3:12-3fa9c2:",
    "tiempo:hint:3:12-3fa9c2",
    "tiempo:replay:3:first:0:0", "tiempo:replay:3:next:12:1", "tiempo:replay:3:last:end:0", "tiempo:replay:3:round:1",
    "tiempo:learn", "tiempo:learn:ripples", "tiempo:learn-go", "tiempo:learn:ripples:0:",
    "tiempo:learn:ripples:1:build.KEEP",
    "tiempo:learn-back:ripples:0:build", "tiempo:learn-ok:ripples:0:build.KEEP.M.a00.C4"])
def test_a_button_drawn_before_a_restart_or_an_update_finds_its_item(custom_id: str) -> None:
    found = [item for item in DYNAMIC_ITEMS if item.__discord_ui_compiled_template__.fullmatch(custom_id)]
    assert len(found) == 1, (custom_id, found)


def test_each_control_becomes_its_buttons_in_order() -> None:
    panel = PanelView(3, "12-3fa9c2", ("build",), ("build",), "Which?", (), back=(), confirm=True, harms=True)
    controls = (Answers(3, "12-3fa9c2", (("E4: Ana's Keep", "E4"),)), PlayButton(3), HandButtons(3, "12-3fa9c2"),
                LobbyButtons(3), RematchButton(3), ConfirmButton(3, "12-3fa9c2", "T1>F"), CancelButton(3),
                PanelControls(panel))
    items = items_of(controls)
    assert [type(i).__name__ for i in items] == [
        "Answer", "Play", "MyHand", "BoardNow", "Join", "Leave", "Start", "Rematch", "ConfirmAction",
        "ConfirmCancel", "PanelConfirm", "PanelBack"]
    labels = [getattr(getattr(i, "item", None), "label", None) for i in items]
    assert labels[:4] == ["E4: Ana's Keep", "Play", "My hand", "Board now"]
    confirm = next(i for i in items if type(i).__name__ == "PanelConfirm")
    button = getattr(confirm, "item", None)
    assert isinstance(button, discord.ui.Button) and button.style is discord.ButtonStyle.danger


def test_a_replay_step_becomes_four_buttons_and_a_list_of_rounds() -> None:
    buttons = (ReplayButton("first", "⏮", 0, False), ReplayButton("prev", "◀", 3, False),
               ReplayButton("next", "▶", 5, False), ReplayButton("last", "⏭", None, False))
    view = ReplayView(3, 4, 20, True, 2, buttons, ((1, 1), (2, 4), (3, 7)))
    items = items_of((ReplayControls(view),))
    assert [i.custom_id for i in items] == ["tiempo:replay:3:first:0:1", "tiempo:replay:3:prev:3:1",
                                            "tiempo:replay:3:next:5:1", "tiempo:replay:3:last:end:1",
                                            "tiempo:replay:3:round:1"]
    assert [getattr(i.item, "emoji", None) and str(i.item.emoji) for i in items[:4]] == ["⏮", "◀", "▶", "⏭"]
    menu = items[4].item
    assert isinstance(menu, discord.ui.Select)
    assert [(o.label, o.value, o.default) for o in menu.options] == [("Round 1", "1", False), ("Round 2", "4", True),
                                                                     ("Round 3", "7", False)]
    with pytest.raises(ValueError, match="private answer"):
        encode_post(Reply(say("Game #3"), controls=(ReplayControls(view),), public=True))


def test_a_name_is_shown_as_it_is_not_as_markdown_or_a_mention() -> None:
    said = say("{name} opens game #1; {who}, your turn.", name=Name("*Bo*_b @everyone"), who=Mention(7, "**X**"))
    assert markdown(said) == "\\*Bo\\*\\_b @\u200beveryone opens game #1; <@7>, your turn."
    # within bold words too (a profile's heading): the name escaped, the bold kept
    heading = Strong(say("{name} — this server", name=Name("*Bo*_b @everyone")))
    assert markdown(text(heading)) == "**\\*Bo\\*\\_b @\u200beveryone — this server**"


class _Channel:
    """A channel whose last message is ``last``, recording edits."""

    def __init__(self, last: int) -> None:
        self.last, self.edits = last, []  # type: ignore[var-annotated]

    async def history(self, limit: int) -> Any:
        yield discord.Object(self.last)

    def get_partial_message(self, message_id: int) -> Any:
        channel = self

        class _Message:
            async def edit(self, content: str, **kwargs: Any) -> None:
                channel.edits.append(content)

        return _Message()


class _Client:
    def __init__(self, channel: _Channel) -> None:
        self.channel = channel

    def get_partial_messageable(self, channel_id: int) -> _Channel:
        return self.channel


async def test_a_live_message_grows_only_while_its_words_fit_whole() -> None:
    channel = _Channel(last=5)
    outbox = ChannelOutbox(_Client(channel))  # type: ignore[arg-type]
    assert await outbox.edit(1, 5, Post(text("Ana builds a Keep.\nAna travels.")))
    assert channel.edits == ["Ana builds a Keep.\nAna travels."]
    grown = "\n".join(f"Ana does thing number {n}." for n in range(200))
    assert len(grown) > MAX_TEXT
    assert not await outbox.edit(1, 5, Post(text(grown)))  # posted anew, whole, rather than cut
    assert channel.edits == ["Ana builds a Keep.\nAna travels."]
    assert not await outbox.edit(1, 4, Post(text("Ben builds.")))  # no longer the channel's last message


def test_the_discord_group_reads_like_discord_py_s_examples() -> None:
    """A newcomer finds ``/tiempo build`` in one method of one class."""
    build = _commands()["build"]
    assert build.callback.__qualname__ == "TiempoGroup.build"
    assert re.search(r"await self\.run\(interaction, \"build\"", _source(build.callback))


def _source(function: Any) -> str:
    import inspect

    return inspect.getsource(function)


async def test_a_public_answer_stays_public_after_a_private_thinking(discord_sim: Any, tmp_path: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The service says whether a reply is public; a slow command's "thinking…", which only its player
    sees, is replaced by a message for everyone rather than the reply being made private."""
    import asyncio

    from bot.discord import answering
    from bot.service import Reply
    from tests.support.discord_play import make_bot

    sim = discord_sim
    bot = make_bot(sim, tmp_path / "t.sqlite3")
    await sim.connect(bot)
    monkeypatch.setattr(answering, "ACK_S", 0.05)

    async def slow_public(*args: Any, **kwargs: Any) -> Reply:
        await asyncio.sleep(0.5)
        return Reply(text("Everyone reads this."), public=True)

    monkeypatch.setattr(bot.service, "start_game", slow_public)
    record = sim.interactions[sim.inject(sim.slash("tiempo", "start"))]
    await sim.wait_for(lambda: len(record.answer_ids) == 2, timeout=10)
    thinking, reply = (sim.message(i) for i in record.answer_ids)
    assert thinking.ephemeral and thinking.content == answering.POSTED_BELOW
    assert reply.content == "Everyone reads this." and not reply.ephemeral
    assert sim.errors == [], [r.getMessage() for r in sim.errors]


async def test_sending_buttons_keeps_nothing_per_message_in_the_process(discord_sim: Any, tmp_path: Any) -> None:
    """Every button is a DynamicItem whose id carries its state: discord.py keeps its sixteen patterns,
    not a view per message sent (which would grow with every post of a long-running bot)."""
    from tests.support.discord_play import make_bot, open_table

    sim = discord_sim
    bot = make_bot(sim, tmp_path / "t.sqlite3")
    await sim.connect(bot)
    await open_table(sim, bot, "bob", "carol")
    await bot.service.idle()
    assert any(m.custom_ids() for m in sim.channel_messages())  # the lobby's and the board's buttons
    assert bot.persistent_views == []
    assert sim.errors == [], [r.getMessage() for r in sim.errors]


async def test_the_catalogue_s_calls_convert_typed_values_and_refuse_unreadable_ones() -> None:
    from bot.service import Caller, Refusal, Reply
    from rules import Age

    asked: list[tuple[str, Any]] = []

    class Service:
        async def game_log(self, caller: Caller, count: int) -> Reply:
            asked.append(("log", count))
            return Reply(text("log"))

        async def board(self, caller: Caller, age: Age | None) -> Reply:
            asked.append(("board", age))
            return Reply(text("board"))

        async def play(self, caller: Caller, word: str, options: dict[str, str | None]) -> Reply:
            asked.append((word, options))
            return Reply(text("played"))

    caller, service = Caller(1, 1, 5, "Ana"), Service()
    await CATALOGUE["log"].call(service, caller, {"count": "30"})  # type: ignore[arg-type]
    await CATALOGUE["board"].call(service, caller, {"age": "faith"})  # type: ignore[arg-type]
    await CATALOGUE["travel"].call(service, caller, {"pawn": 1, "to": "Faith"})  # type: ignore[arg-type]
    assert asked == [("log", 30), ("board", Age.FAITH), ("travel", {"pawn": "1", "age": "Faith"})]
    with pytest.raises(Refusal, match=re.escape("`count` takes a number, e.g. `log 30`.")):
        await CATALOGUE["log"].call(service, caller, {"count": "many"})  # type: ignore[arg-type]
    with pytest.raises(Refusal):
        await CATALOGUE["board"].call(service, caller, {"age": "Water"})  # type: ignore[arg-type]


def test_every_lesson_s_custom_ids_fit_discord_s_100_characters() -> None:
    """Each task's own move, picked by taps: its lists', Back's and Confirm's custom ids (the longest)."""
    from bot.discord.items import LessonBack, LessonConfirm, LessonPick
    from bot.service.course import LESSONS
    from bot.service.steps import path_to
    from rules import parse_action

    for lesson in LESSONS:
        for stage, task in enumerate(lesson.tasks):
            state = lesson.state_at(stage)
            path = path_to(state, state.waiting_on, parse_action(task.answer, state))
            for item in (LessonPick(lesson.key, stage, path), LessonBack(lesson.key, stage, path),
                         LessonConfirm(lesson.key, stage, path)):
                assert len(item.custom_id) <= 100, item.custom_id


def test_a_post_with_its_boards_holds_what_a_layout_holds_before_it_is_cut() -> None:
    """A turn post with pictures is a Components V2 layout, whose text may run to 4000 characters: a
    five-player turn's words (about 2,500) are sent whole there, and cut only past that; without
    pictures, a classic message's 2000 hold."""
    from bot.discord.sending import MAX_LAYOUT_TEXT, message_of
    from bot.service import Picture, Post
    from bot.words import as_text

    words = "\n".join(f"Sibyl (Yellow) does thing number {n} of a long turn." for n in range(50))
    assert 2000 < len(words) < 3000
    board = Picture(b"\x89PNG", "tiempo-1-v3-might.png", "Might after the turn")
    sent = message_of(Post(as_text(words), gallery=(board,)))
    shown = [c for c in sent["view"].walk_children() if isinstance(c, discord.ui.TextDisplay)]
    assert [t.content for t in shown] == [words]
    classic = message_of(Post(as_text(words)))["content"]
    assert len(classic) <= MAX_TEXT and classic.endswith("more lines)")
    longer = "\n".join([words] * 3)
    cut = [c for c in message_of(Post(as_text(longer), gallery=(board,)))["view"].walk_children()
           if isinstance(c, discord.ui.TextDisplay)]
    assert MAX_TEXT < len(cut[0].content) <= MAX_LAYOUT_TEXT < 4000 and cut[0].content.endswith("more lines)")


def test_a_long_post_is_cut_before_its_last_paragraph_which_names_whose_turn_it_is() -> None:
    """A busy turn's post cut to fit one message keeps its end (the ping of the player to move) and
    leaves out lines before it."""
    from bot.discord.sending import trim

    narration = "\n".join(f"Magpie does thing number {n}." for n in range(120))
    post = f"{narration}\n\nScores: alice 3 · bob 5\n\n<@1>, your turn (round 7 of 7)."
    cut = trim(post)
    assert len(cut) <= MAX_TEXT
    assert cut.startswith("Magpie does thing number 0.")
    assert cut.endswith("\n\n<@1>, your turn (round 7 of 7).")
    assert re.search(r"\n… \(\d+ more lines\)\n\n<@1>", cut)
    left = int(re.search(r"… \((\d+) more lines\)", cut).group(1))  # type: ignore[union-attr]
    assert left == len(post.split("\n")) - len(cut.split("\n")) + 1
    standings = "\n".join(f"Player number {n} with a long name: 13 Ecus · collected this round · for round 7: income "
                           f"now 9 (Might 5; Faith 4) · 19 cubes, 4 cards · pawns on Faith and Might" for n in range(5))
    question = trim(f"{narration}\n\n{standings}", MAX_TEXT)  # (a question's post ends with the standings)
    assert question.endswith(f"more lines)\n\n{standings}") and len(question) <= MAX_TEXT
    no_break = "\n".join(f"line {n} of a long list" for n in range(300))
    assert trim(no_break).endswith("more lines)") and len(trim(no_break)) <= MAX_TEXT
