"""The course: short lessons built from the rulebook's worked examples (the digest's T1–T24), one idea
each, played by taps on a small position (docs/course.md).

Data only, and pure: each ``Lesson`` is a position in the notation (docs/notation.md), the idea in two
or three sentences, and one or more ``Task``s, each the move the learner makes, how it is recognised
(``accept``, a test of the action and the events it causes, so that any equivalent move counts), why
another move is not it, and what the result shows. ``bot.service.lessons`` serves them; every
sentence is a ``say`` template of the wording layer.

The first-time tips (``first_tip``) live here too: one line the first time a player meets a ripple, a
paradox, a junction or an income round in a real game, with a pointer to the lesson.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from rules import (
    Action,
    Age,
    Choose,
    Construct,
    EndTurn,
    GameState,
    Kind,
    Populate,
    Renovate,
    Swap,
    Travel,
    Upgrade,
    apply,
    domains,
    parse_action,
    parse_position,
)
from rules import events as ev

from ..words import Command, Text, say

#: a test of the learner's move: the state before, the action, and the events it causes
Match = Callable[[GameState, Action, Sequence[ev.Event]], bool]


@dataclass(frozen=True)
class Task:
    """One move of a lesson. ``answer`` is the lesson's own move in the notation (the one the lesson
    goes on from when it has another task; tests play it by taps); ``accept`` says whether a move is
    the lesson's move; ``wrongs`` name, for some other moves, why they are not it (the first that
    matches), ``why_not`` for the rest; ``then`` are the other players' answers to the questions the
    move raises, played for them; ``result`` explains what happened."""

    prompt: Text
    answer: str
    accept: Match
    why_not: Text
    result: Text
    wrongs: tuple[tuple[Match, Text], ...] = ()
    then: tuple[str, ...] = ()

    def verdict(self, before: GameState, action: Action, events: Sequence[ev.Event]) -> Text | None:
        """None when ``action`` is the lesson's move, else why it is not."""
        if self.accept(before, action, events):
            return None
        for match, reason in self.wrongs:
            if match(before, action, events):
                return reason
        return self.why_not


@dataclass(frozen=True)
class Lesson:
    """A lesson: ``key`` (short: it goes into a button's id), ``title``, the worked example and rules it
    comes from, the ``position``, the ``idea``, the board its pictures show first (``age``) and its
    ``tasks``."""

    key: str
    title: Text
    example: str
    rules: str
    position: str
    idea: Text
    age: Age
    tasks: tuple[Task, ...]
    #: the result shows the lesson's board even when the move changed no board (income: where it came from)
    pictures_result: bool = True

    def state_at(self, stage: int) -> GameState:
        """The lesson's position before task ``stage`` (the earlier tasks played with their answers)."""
        return _state_at(self, stage)


@lru_cache(maxsize=64)
def _state_at(lesson: Lesson, stage: int) -> GameState:
    state = parse_position(lesson.position)
    for task in lesson.tasks[:stage]:
        state, _ = play_lines(state, (task.answer, *task.then))
    return state


def play_lines(state: GameState, moves: Sequence[str]) -> tuple[GameState, list[ev.Event]]:
    """``moves`` (in the notation) played from ``state``, with their events."""
    events: list[ev.Event] = []
    for line in moves:
        state, more = apply(state, parse_action(line, state))
        events += more
    return state, events


# ---------------------------------------------------------------------------------------------
# Tests of a move


def verb(*kinds: type[Action]) -> Match:
    """The move is one of these kinds of action."""
    return lambda s, a, e: isinstance(a, kinds)


def travels_to(age: Age) -> Match:
    return lambda s, a, e: isinstance(a, Travel) and a.to is age


def builds(kind: Kind, age: Age | None = None, origin: str | None = None) -> Match:
    """A construction of ``kind`` (on ``age``, at ``origin`` when given)."""
    return lambda s, a, e: (isinstance(a, Construct) and a.kind is kind and (age is None or a.age is age)
                            and (origin is None or str(a.origin) == origin))


def upgrades_to(kind: Kind) -> Match:
    return lambda s, a, e: isinstance(a, Upgrade) and a.kind is kind


def causes(*kinds: type) -> Match:
    """The move causes an event of one of these kinds."""
    return lambda s, a, e: any(isinstance(x, kinds) for x in e)


def both(*tests: Match) -> Match:
    return lambda s, a, e: all(t(s, a, e) for t in tests)


def covers(terrain: str) -> Match:
    """A construction whose footprint covers a cell of ``terrain`` (``river``, ``mountain``, ``forest``)."""
    def test(s: GameState, a: Action, e: Sequence[ev.Event]) -> bool:
        if not isinstance(a, (Construct, Upgrade)):
            return False
        cells = s.map.footprint(a.origin, a.kind.level) or ()
        return not getattr(s.map, f"{terrain}_cells").isdisjoint(cells)
    return test


def joins(cell: str) -> Match:
    """The building the move puts on its board ends up in the domain of the building covering ``cell``."""
    def test(s: GameState, a: Action, e: Sequence[ev.Event]) -> bool:
        if not isinstance(a, (Construct, Upgrade)):
            return False
        after, _ = apply(s, a)
        board = after.boards[a.age]
        mine, theirs = board.at(after.map.index(a.origin)), board.at(after.map.index(after.map.parse_cell(cell)))
        return mine is not None and theirs is not None and any(
            mine.id in g and theirs.id in g for g in domains(board, after.map).groups)
    return test


# ---------------------------------------------------------------------------------------------
# The lessons

SMALL = "map: plain 10x9\n"

LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "cards", say("Cards and pawns"), "T1", "R15–R17, R26",
        SMALL + "active: Blue\nBlue: ecus=4 hand=RRCM\n",
        say("Your cards have three colours: Military (M), Religious (R) and Civil (C), and a building is paid "
            "with cards of its own colour. Your two pawns stand on the boards of the three Ages: each lets you "
            "play up to 2 cards a turn on its board, and an action of 3 or 4 cards needs both pawns on its board. "
            "Travelling moves a pawn to another board for 1 Ecu."),
        Age.FAITH,
        (Task(
            say("You are Blue. Your hand is mostly Religious cards, and a Monastery or an Abbey earns a bonus of "
                "2 Ecus on Faith (1 on Might), but both your pawns stand on Might. Send a pawn to Faith."),
            "Blue travel 1 F", travels_to(Age.FAITH),
            say("this lesson's move is to travel a pawn to Faith."),
            say("Your pawn stands on Faith, for 1 Ecu: this turn you may play up to 2 cards there through it, and "
                "up to 2 on Might through the other pawn. Where your pawns stand at the end of your turn also "
                "decides where you collect income in rounds 4 and 7."),
            wrongs=((travels_to(Age.REASON), say("on Reason cards populate and renovate; Religious buildings "
                                                 "are built on Might and Faith, and this lesson's board is "
                                                 "Faith.")),
                    (verb(Construct), say("building comes in the next lessons; first put a pawn on Faith."))),
        ),),
    ),
    Lesson(
        "terrain", say("Terrain"), "T23", "R35–R39",
        SMALL + "terrain: D1=~ D2=~ D3=~ D4=~ D5=~ D6=~ D7=~ D8=~ D9=~ A3=m B3=m A1=f\nactive: Red\nRed: hand=CCM\n",
        say("Cells are plain, forest, mountain or river. Nothing but a Town or a City may cover a river: no "
            "Hamlet, no Military or Religious building. A mountain costs extra cards of any colour (1 with four "
            "players, 2 with two or three), and a forest 1 more with two or three players."),
        Age.MIGHT,
        (Task(
            say("You are Red, at a table of four, with two Civil cards. Build a Town (2×2) across the river, "
                "column D."),
            "Red build Town C3 on M pay CC 1+1", both(builds(Kind.TOWN), covers("river")),
            say("this lesson's Town covers a river cell (column D)."),
            say("Your Town bridges the river at its plain price, two Civil cards: a river only keeps other "
                "buildings out. A Town on the mountain (A3, B3) would have cost a third card, as the list of places "
                "said (\"+ 1 for mountain\"); the forest at A1 costs nothing extra with four players."),
            wrongs=((both(builds(Kind.TOWN), covers("mountain")), say("that Town covers the mountain, which costs "
                                                                      "a card more; this lesson's Town crosses "
                                                                      "the river (column D).")),
                    (builds(Kind.TOWN), say("that Town stands on dry land; this lesson's Town crosses the river "
                                            "(column D)."))),
        ),),
    ),
    Lesson(
        "building", say("Building and sizes"), "T2, T3", "R27–R29",
        SMALL + "active: Green\nGreen: ecus=4 hand=MMC\nM: Watchtower[Green]@B2\n",
        say("A building's value is its size: a Watchtower covers 1 cell, a Keep 2×2, a Castle 3×3, and "
            "constructing one costs that many cards of its family. Upgrading costs only the difference (your own "
            "Military or Religious building, or any Civil one), and the bigger tile may grow in any direction "
            "as long as it covers the old one. A "
            "building of value 2 or 3 earns a bonus at once: 1 Ecu on Might, 2 on Faith."),
        Age.MIGHT,
        (Task(
            say("You are Green. Upgrade your Watchtower at B2 to a Keep: one Military card, where a new Keep "
                "would cost two."),
            "Green upgrade B2 on M to Keep at B2 pay M 1+0", upgrades_to(Kind.KEEP),
            say("this lesson's move upgrades the Watchtower at B2 to a Keep."),
            say("The Keep keeps your Watchtower's cube and earned you 1 Ecu; the Watchtower tile went back to the "
                "stock. It also rippled to the later Ages, the subject of a later lesson."),
            wrongs=((builds(Kind.KEEP), say("a new Keep costs two Military cards; upgrading the Watchtower costs "
                                            "one.")),
                    (upgrades_to(Kind.CASTLE), say("a Castle costs two cards more (3 − 1); this lesson's upgrade is "
                                                   "to a Keep, for one."))),
        ),),
    ),
    Lesson(
        "domains", say("Domains and the Rule of Dominion"), "T6, T8", "R40, R41",
        SMALL + "active: White\nWhite: hand=MMC\nM: Keep[Red]@B2 Town@B4 Hamlet@A6 Watchtower[Green]@G2\n",
        say("Buildings that touch by a side form a domain; touching at a corner does not count. Domains are "
            "what income is counted by. Only a Civil building may join two domains into one: a Military or "
            "Religious building may not touch two domains at once (the Rule of Dominion)."),
        Age.MIGHT,
        (Task(
            say("You are White. Red's Keep and the Town touch: one domain. Build a Watchtower that joins it."),
            "White build Watchtower D2 on M pay M 1+0", both(builds(Kind.WATCHTOWER), joins("B2")),
            say("this lesson's Watchtower touches Red's domain, the Keep at B2 or the Town at B4."),
            say("Your Watchtower is part of Red's domain now. No list offered A5: there it would touch both the "
                "Town and the lone Hamlet at A6, two domains, and only a Civil building may join domains."),
            wrongs=((builds(Kind.WATCHTOWER), say("that Watchtower does not touch Red's domain by a side: it "
                                                  "stands in a domain of its own, or joins Green's.")),),
        ),),
    ),
    Lesson(
        "hierarchy", say("The Rule of Hierarchy"), "T8", "R43",
        SMALL + "active: White\nWhite: hand=MMM\nM: Keep[Red]@B2 Town@D2\n",
        say("In a domain the top Military building must be unique, and so must the top Religious one: the Rule "
            "of Hierarchy. A Keep may not join a domain whose top Military building is a Keep, whoever owns it, "
            "but a smaller Watchtower or a bigger Castle may. The top building decides who collects the "
            "domain's income."),
        Age.MIGHT,
        (Task(
            say("You are White, with three Military cards. Red's Keep heads the domain of the Keep and the Town. "
                "Take it over: build a Castle that joins that domain."),
            "White build Castle F1 on M pay MMM 2+1", both(builds(Kind.CASTLE), joins("B2")),
            say("this lesson's Castle touches Red's domain (the Keep at B2 or the Town at D2)."),
            say("Your Castle is the domain's top Military building: at income on Might the domain pays you, no "
                "longer Red. No place next to the domain offered a Keep: it would equal Red's."),
            wrongs=((builds(Kind.CASTLE), say("that Castle stands apart, in a domain of its own; this lesson's "
                                              "Castle joins Red's domain and outranks the Keep.")),
                    (both(builds(Kind.WATCHTOWER), joins("B2")), say("a Watchtower may join (smaller buildings "
                                                                     "may be many), but it does not outrank "
                                                                     "Red's Keep: build the Castle.")),
                    (builds(Kind.KEEP), say("that Keep stands apart: next to Red's domain a Keep is refused, "
                                            "since it would equal Red's Keep."))),
        ),),
    ),
    Lesson(
        "ripples", say("Ripples"), "T9", "R47–R50",
        SMALL + "active: Red\nRed: hand=MMR\n",
        say("What you build early in time echoes later: a building of value 2 or 3 built on Might ripples to "
            "Faith and Reason, one built on Faith ripples to Reason. On Faith the copy (its shadow) is yours, with "
            "a new cube; on Reason a Military or Religious building arrives as a ruin without a cube. Value-1 "
            "buildings never ripple."),
        Age.MIGHT,
        (Task(
            say("You are Red. Build a Keep on Might and watch it ripple."),
            "Red build Keep B2 on M pay MM 1+1", both(builds(Kind.KEEP), causes(ev.Rippled)),
            say("this lesson's move is a Keep, which ripples."),
            say("Your Keep stands on Might, its shadow on Faith with a new cube of yours, and its ruin on Reason, "
                "which any player may renovate later. The two shadows cost you nothing."),
            wrongs=((verb(Construct), say("a building of value 1 does not ripple; a Keep (value 2) does.")),),
        ),),
    ),
    Lesson(
        "paradox", say("Paradoxes"), "T10", "R51, R53",
        SMALL + "active: Blue\nBlue: hand=RR\nF: Monastery[Green]@C3\nR: Monastery-ruin@C3\n",
        say("A ripple lands on the later board whatever stands there: a building its shadow overlaps is "
            "removed, with its own shadows: a temporal paradox. Its owner gets only the cube back. Building "
            "early in time can erase what others built later."),
        Age.FAITH,
        (Task(
            say("You are Blue. Green's Monastery stands on Faith at C3–D4. Build a Monastery on Might whose "
                "shadow lands on it (B2 does)."),
            "Blue build Monastery B2 on M pay RR 1+1", both(builds(Kind.MONASTERY, Age.MIGHT),
                                                           causes(ev.ParadoxRemoved)),
            say("this lesson's Monastery is built on Might where its shadow overlaps Green's Monastery on Faith "
                "(C3–D4)."),
            say("Green's Monastery on Faith is gone, its cube back to Green, and with it its ruin on Reason. Your "
                "Monastery stands on all three boards, and you earned the 1 Ecu bonus of Might."),
            wrongs=((builds(Kind.MONASTERY), say("that Monastery's shadow lands beside Green's: no paradox. "
                                                 "Overlap C3–D4.")),),
        ),),
    ),
    Lesson(
        "blocked", say("Forbidden ripples"), "T11, T12", "R51",
        SMALL + "active: Blue\nBlue: hand=RR\nF: Hamlet@B2 Hamlet@E2\n",
        say("A copy on Faith must obey the rules of Faith's board: a Military or Religious shadow that would touch "
            "two domains (Dominion) or equal a domain's top building (Hierarchy) is forbidden, and then nothing "
            "ripples, to Faith or to Reason. The building on Might stands all the same, with its bonus."),
        Age.FAITH,
        (Task(
            say("You are Blue. On Faith two Hamlets stand at B2 and E2. Build a Monastery on Might at C2: on Faith "
                "its shadow would touch both."),
            "Blue build Monastery C2 on M pay RR 1+1", both(builds(Kind.MONASTERY, Age.MIGHT),
                                                           causes(ev.RippleForbidden)),
            say("this lesson's Monastery is one whose shadow on Faith would touch both Hamlets (C2 does)."),
            say("Your Monastery stands on Might and earned its bonus, but Faith and Reason stay as they were: the "
                "shadow would have joined two domains, which only a Civil building may do."),
            wrongs=((builds(Kind.MONASTERY), say("that Monastery ripples freely; at C2 its shadow would touch both "
                                                 "Hamlets.")),),
        ),),
    ),
    Lesson(
        "junction", say("Junctions and downsizing"), "T13", "R60–R65",
        SMALL + """
            active: Red
            Red: hand=C
            M: Keep[Red]@A1 Watchtower[Green]@C1 Keep[White]@E1
            F: Keep[Red]@A1 Keep[White]@E1
            R: Keep-ruin@A1 Keep-ruin@E1
            """,
        say("A Civil building touching two domains joins them: a junction. If the joined domain then has two "
            "equal top buildings, the side with less Military (or Religious) power downsizes its top building "
            "one level, a building of value 1 being destroyed. A building downsized to value 1 loses its "
            "shadows on the later boards; a Castle or Abbey downsized has them downsized with it."),
        Age.MIGHT,
        (Task(
            say("You are Red. Your Keep and Green's Watchtower (power 2 + 1 = 3) face White's Keep (power 2). Build "
                "a Hamlet at D1 to join the two domains."),
            "Red build Hamlet D1 on M pay C 1+0", builds(Kind.HAMLET, Age.MIGHT, "D1"),
            say("this lesson's Hamlet goes to D1, between the two domains."),
            say("Two Keeps in one domain broke the Rule of Hierarchy. Your side's power, 3, beat White's 2, so "
                "White's Keep was downsized to a Watchtower (White put it at E1) and its shadows on Faith and "
                "Reason were removed. Your Keep is the unique top of the whole domain."),
            wrongs=((builds(Kind.HAMLET), say("that Hamlet touches at most one domain; D1 touches both.")),),
            then=("White choose E1",),
        ),),
    ),
    Lesson(
        "cascade", say("A tie and a cascade"), "T14", "R61–R64",
        SMALL + """
            active: Green
            Green: hand=C
            M: Keep[Red]@A1 Chapel[Green]@B3 Keep[White]@D1 Chapel[White]@E3
            F: Keep[Red]@A1 Keep[White]@D1
            R: Keep-ruin@A1 Keep-ruin@D1
            """,
        say("When the two sides of a junction have equal power, the player who made the junction chooses which "
            "top building is downsized, unless one of them is that player's own: then that one is. Its owner places "
            "the smaller tile, and the check goes on: the Military buildings first, then the Religious ones."),
        Age.MIGHT,
        (Task(
            say("You are Green. Red's Keep with your Chapel (Military power 2) and White's Keep with White's Chapel "
                "(power 2) are two domains. Build a Hamlet at C2 to join them."),
            "Green build Hamlet C2 on M pay C 1+0", builds(Kind.HAMLET, Age.MIGHT, "C2"),
            say("this lesson's Hamlet goes to C2, touching both Keeps."),
            say("Two Keeps now share a domain, with equal power, 2 against 2, and neither is yours: you choose which "
                "one is downsized."),
            wrongs=((builds(Kind.HAMLET), say("that Hamlet does not touch both domains; C2 touches both Keeps.")),),
        ), Task(
            say("Answer the question: downsize Red's Keep at A1, as in the rulebook's example."),
            "Green choose A1", lambda s, a, e: isinstance(a, Choose) and str(a.cell) == "A1",
            say("this lesson follows the rulebook and downsizes Red's Keep at A1 (White's would be just as legal)."),
            say("Red placed their Watchtower at B2, keeping the domain in one piece. Then the Religious check found "
                "two Chapels of equal power, and one of them is yours: yours was downsized, and a Chapel downsized "
                "is destroyed. A junction can cost its maker."),
            then=("Red choose B2",),
        )),
    ),
    Lesson(
        "reason", say("Reason: populating and renovating"), "T17, T18", "R31, R32, R76",
        SMALL + "hamlets: B2\nactive: Red\nRed: pawns=R,R hand=CM\nR: Keep-ruin@C2\n",
        say("Nothing is constructed on Reason: you play cards there. A Civil card puts one of your cubes in a "
            "Civil building (a Hamlet holds 1, a Town 3, a City 5): the player with most cubes in a domain "
            "controls it. A card of a ruin's family renovates it: a ruin counts its value minus 1 in its "
            "domain's income, a restored building its full value."),
        Age.REASON,
        (Task(
            say("You are Red, with both pawns on Reason. First populate the printed hamlet at B2 with your Civil "
                "card."),
            "Red populate B2 pay C 1+0", verb(Populate),
            say("this lesson's first move populates the hamlet at B2."),
            say("One of your cubes lives in the hamlet (a Hamlet holds one): you have the majority of its domain, "
                "the hamlet and the Keep ruin."),
        ), Task(
            say("Now renovate the Keep ruin at C2–D3 with your Military card."),
            "Red renovate C2 pay M 0+1", verb(Renovate),
            say("this lesson's second move renovates the Keep ruin."),
            say("The Keep is restored (no cube stays on it): it now counts 2 in its domain instead of 1 as a ruin. "
                "With your cube in the hamlet, the domain would pay you 2 Ecus in an income round: on Reason a "
                "domain pays the value of its Military and Religious buildings, not of its Civil ones."),
        )),
    ),
    Lesson(
        "income", say("Income: taxes, tithes, majorities"), "T19, T20, T21", "R21, R73–R77",
        SMALL + "hamlets: F1 A9\nround: 4\nactive: Red\n"
        "M: Keep[Red]@A1 City@C1 Town@A3 Hamlet@F2 Watchtower[Green]@G1 Watchtower[Red]@A8 Town@B8 Hamlet@D8\n",
        say("In rounds 4 and 7 you collect income at the end of your own turn, from each board where a pawn of "
            "yours stands. On Might a domain pays the owner of its unique top Military building the value of its "
            "Civil buildings (Hamlet 1, Town 2, City 3): taxes; on Faith the top Religious building collects "
            "tithes the same way. On Reason the player with most cubes in a domain's Civil "
            "buildings collects the value of its Military and Religious buildings, a ruin counting one less (each "
            "tied player in full)."),
        Age.MIGHT,
        (Task(
            say("You are Red, in round 4, with both pawns on Might. Your Keep heads one domain and your Watchtower "
                "another. End your turn to collect."),
            "Red end", verb(EndTurn),
            say("this lesson's move ends your turn, which counts the income."),
            say("You collected 11 Ecus from Might: 7 from the domain your Keep heads (City 3, Town 2, two Hamlets) "
                "and 4 from the one your Watchtower heads (Town 2, two Hamlets). Green's Watchtower is not its "
                "domain's top, so it earns Green nothing."),
            wrongs=((travels_to(Age.FAITH), say("a pawn on Faith collects nothing there (you head no domain on "
                                                "Faith): end your turn with your pawns on Might.")),
                    (verb(Travel), say("travelling costs an Ecu and collects nothing more: end your turn.")),),
        ),),
    ),
    Lesson(
        "holdem", say("Hold'em"), "T22", "R33",
        SMALL + "options: holdem\nreserve: MCC\nactive: Red\nRed: hand=RRMC\n",
        say("In the Hold'em variant three cards lie face up beside the deck: the reserve. At the start of your "
            "turn (after an exchange, if you make one, and before any other action) you may swap with it once, "
            "for free: take one or more cards of one colour, giving as many of yours. Everyone sees what you "
            "take and what you give."),
        Age.MIGHT,
        (Task(
            say("You are Red, hoping for a City (three Civil cards). Take both Civil cards from the reserve, "
                "giving your two Religious cards."),
            "Red swap take CC give RR", lambda s, a, e: isinstance(a, Swap) and str(a.take) == "CC",
            say("this lesson's swap takes both Civil cards."),
            say("Your hand holds three Civil cards and one Military card, enough for a City; the reserve now "
                "shows your two Religious cards to everyone, who may take them."),
            wrongs=((verb(Swap), say("take the two Civil cards, not one card.")),),
        ),),
        pictures_result=False,
    ),
)

COURSE: Mapping[str, Lesson] = {lesson.key: lesson for lesson in LESSONS}


def lesson_number(key: str) -> int:
    """1 for the first lesson."""
    return [lesson.key for lesson in LESSONS].index(key) + 1


def next_lesson(key: str, done: Collection[str] = ()) -> str | None:
    """The lesson after ``key`` not done yet (the first not done, from the start, when every later one
    is); None when every lesson is done."""
    keys = [lesson.key for lesson in LESSONS]
    after = keys[keys.index(key) + 1:] + keys[:keys.index(key)]
    return next((k for k in after if k not in done and k != key), None)


# ---------------------------------------------------------------------------------------------
# First-time tips


@dataclass(frozen=True)
class Tip:
    """One line for a player meeting something the first time: ``key`` (``ripple``, ``paradox``,
    ``junction``, ``income``), ``lesson`` the lesson it points to, and ``text``."""

    key: str
    lesson: str
    text: Text


#: what each tip explains, in the order they are checked, with the events that show it
TIPS: tuple[tuple[str, str, tuple[type, ...], Text], ...] = (
    ("paradox", "paradox", (ev.ParadoxRemoved,),
     say("A ripple overlapped a building on a later board and removed it: a temporal paradox.")),
    ("junction", "junction", (ev.Junction,),
     say("A Civil building joined two domains: a junction; equal top buildings are settled by power.")),
    ("ripple", "ripples", (ev.Rippled,),
     say("A building of value 2 or 3 rippled: its shadow went to the later Ages (a ruin on Reason).")),
    ("income", "income", (ev.IncomePaid,),
     say("Income round: at the end of each turn its player collects from the boards where a pawn stands.")),
)


def first_tip(events: Sequence[ev.Event], seen: Collection[str]) -> Tip | None:
    """The tip for the first thing in ``events`` a player has not met before (``seen``: tip keys), or
    None. One line, with the lesson to learn more (``/tiempo learn``)."""
    for key, lesson, kinds, line in TIPS:
        if key not in seen and any(isinstance(e, kinds) for e in events):
            return Tip(key, lesson, say("💡 {line} Learn more: {learn}, lesson {n} ({title}).", line=line,
                                        learn=Command("learn"), n=lesson_number(lesson), title=COURSE[lesson].title))
    return None


def tips_on(options: Mapping[str, object]) -> bool:
    """Whether a game gives first-time tips: its ``tips`` option, on unless turned off."""
    return options.get("tips", True) is not False


__all__ = ["COURSE", "LESSONS", "Lesson", "Task", "Tip", "first_tip", "lesson_number", "next_lesson", "play_lines",
           "tips_on"]
