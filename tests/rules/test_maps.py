"""The map file format, its loader and the default map "Threewaters Vale" (R1, R3, R34–R39; rulings A1, A2, A11, A12).

See ``docs/map.md`` for the format and the design of the default map.
"""

from __future__ import annotations

from collections import Counter, deque
from itertools import combinations

import pytest

from rules import (
    CODE_OF_FEATURES,
    TERRAIN_CODES,
    Cell,
    GameMap,
    MapError,
    Terrain,
    classify,
    load_map,
    parse_map,
    plain_map,
)

# -- helpers ------------------------------------------------------------------------------------


def river_regions(m: GameMap) -> list[frozenset[int]]:
    """The land regions the rivers cut the map into: edge-connected groups of non-river cells (§0)."""
    seen: set[int] = set()
    regions: list[frozenset[int]] = []
    for start in range(m.width * m.height):
        if start in seen or m.terrain(start) is Terrain.RIVER:
            continue
        group = {start}
        queue = deque([start])
        while queue:
            for n in m.neighbours((queue.popleft(),)):
                if n not in group and m.terrain(n) is not Terrain.RIVER:
                    group.add(n)
                    queue.append(n)
        seen |= group
        regions.append(frozenset(group))
    return regions


def blocks(m: GameMap, size: int) -> list[tuple[int, ...]]:
    """Every size×size footprint on the map (ruling A1), as tuples of cell indices."""
    out = []
    for row in range(m.height):
        for col in range(m.width):
            fp = m.footprint(Cell(col, row), size)
            if fp is not None:
                out.append(fp)
    return out


def open_plain_blocks(m: GameMap) -> list[tuple[int, ...]]:
    """3×3 footprints that are all plain and hold no printed hamlet: a Castle, Abbey or City fits
    there at no surcharge with any player count (R34, R37, R38)."""
    return [fp for fp in blocks(m, 3) if all(m.terrain(i) is Terrain.PLAIN and not m.is_printed_hamlet(i) for i in fp)]


def separate(m: GameMap, a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """Two footprints that neither overlap nor touch: buildings there are in different domains (§0)."""
    return not set(a) & set(b) and not set(m.neighbours(a)) & set(b)


def most_separate(m: GameMap, candidates: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """A largest set of pairwise separate footprints (exhaustive search; the lists are short)."""
    best: list[tuple[int, ...]] = []

    def extend(start: int, chosen: list[tuple[int, ...]]) -> None:
        nonlocal best
        if len(chosen) > len(best):
            best = list(chosen)
        for k in range(start, len(candidates)):
            if all(separate(m, candidates[k], c) for c in chosen):
                chosen.append(candidates[k])
                extend(k + 1, chosen)
                chosen.pop()

    extend(0, [])
    return best


def origins(m: GameMap, footprints: list[tuple[int, ...]]) -> list[str]:
    """The top-left cell of each footprint, e.g. ["C1", "K1"]."""
    return [str(m.cell(fp[0])) for fp in footprints]


@pytest.fixture(scope="module")
def vale() -> GameMap:
    return load_map("default")


# -- the default map ----------------------------------------------------------------------------


def test_a2_default_map_loads_and_is_15_by_12(vale: GameMap) -> None:
    assert vale.name == "Threewaters Vale"
    assert (vale.width, vale.height) == (15, 12)
    assert len(vale.codes) == 15 * 12
    assert load_map() == vale  # "default" is the default name
    assert load_map("default") is vale  # loaded once, shared by the three boards (R1)


def test_a2_default_map_text_form_round_trips(vale: GameMap) -> None:
    assert parse_map(vale.to_text(), source="round-trip") == vale


def test_r3_default_map_has_exactly_10_printed_hamlets_none_on_river(vale: GameMap) -> None:
    assert len(vale.hamlets) == 10
    assert len(set(vale.hamlets)) == 10
    for h in vale.hamlets:
        assert vale.contains(h)
        assert vale.terrain(vale.index(h)) is not Terrain.RIVER, f"printed hamlet {h} is on a river cell (R35)"
        assert vale.is_printed_hamlet(vale.index(h))
    assert [str(h) for h in vale.hamlets] == ["B2", "F3", "J3", "N2", "B5", "G8", "D12", "N5", "I9", "K12"]


def test_r3_r34_default_map_hamlets_are_spread_out_with_room_to_build(vale: GameMap) -> None:
    # no two printed hamlets touch, and each has at least two empty non-river neighbours to build on
    for a, b in combinations(vale.hamlets, 2):
        assert abs(a.col - b.col) + abs(a.row - b.row) > 1, f"printed hamlets {a} and {b} touch"
    for h in vale.hamlets:
        room = [
            n
            for n in vale.neighbours((vale.index(h),))
            if vale.terrain(n) is not Terrain.RIVER and not vale.is_printed_hamlet(n)
        ]
        assert len(room) >= 2, f"printed hamlet {h} is boxed in"
    # every region of the vale has printed hamlets of its own
    for region in river_regions(vale):
        assert sum(vale.is_printed_hamlet(i) for i in region) >= 3


def test_r36_default_map_uses_every_terrain_code(vale: GameMap) -> None:
    counts = Counter(vale.codes)
    assert set(counts) == set(TERRAIN_CODES)
    # several of each mixed cell: plain+forest, forest+mountain, river+forest, plain+mountain, river+plain
    for code in "FMRPW":
        assert counts[code] >= 3, f"only {counts[code]} cell(s) of {code!r}"
    assert counts == {".": 107, "~": 18, "f": 15, "m": 11, "F": 11, "P": 6, "M": 5, "W": 4, "R": 3}


def test_r36_r37_r38_default_map_terrain_mix(vale: GameMap) -> None:
    kinds = Counter(vale.terrain(i) for i in range(vale.width * vale.height))
    assert kinds == {Terrain.PLAIN: 107, Terrain.FOREST: 26, Terrain.MOUNTAIN: 22, Terrain.RIVER: 25}
    # mostly open country, with enough forest and mountain for the surcharges to matter
    assert kinds[Terrain.PLAIN] >= 0.5 * sum(kinds.values())
    assert kinds[Terrain.FOREST] >= 15 and kinds[Terrain.MOUNTAIN] >= 15


def test_r35_river_runs_edge_to_edge_and_cuts_the_vale_into_three_regions(vale: GameMap) -> None:
    river = [i for i in range(vale.width * vale.height) if vale.terrain(i) is Terrain.RIVER]
    # the river cells form one connected water system that touches the left, right and bottom edges
    system = set(river[:1])
    queue = deque(system)
    while queue:
        for n in vale.neighbours((queue.popleft(),)):
            if n not in system and vale.terrain(n) is Terrain.RIVER:
                system.add(n)
                queue.append(n)
    assert system == set(river)
    edge_cells = {str(vale.cell(i)) for i in river if vale.cell(i).col in (0, 14) or vale.cell(i).row == 11}
    assert edge_cells == {"A4", "O4", "H12"}
    regions = river_regions(vale)
    assert sorted(len(r) for r in regions) == [49, 49, 57]
    # no region is cramped: each has room for a 3×3 building
    for region in regions:
        assert any(set(fp) <= region for fp in blocks(vale, 3) if not any(vale.is_printed_hamlet(i) for i in fp))


def test_r35_r41_civil_buildings_can_bridge_every_pair_of_regions(vale: GameMap) -> None:
    """A Town (2×2) may cover river cells (R35), so it can stand on the water and touch both banks:
    a junction (R41). There are such places between every two regions."""
    regions = river_regions(vale)

    def touched(fp: tuple[int, ...]) -> set[int]:
        around = set(fp) | set(vale.neighbours(fp))
        return {k for k, region in enumerate(regions) if around & region}

    bridges: Counter[frozenset[int]] = Counter()
    for fp in blocks(vale, 2):
        if any(vale.terrain(i) is Terrain.RIVER for i in fp) and not any(vale.is_printed_hamlet(i) for i in fp):
            for pair in combinations(sorted(touched(fp)), 2):
                bridges[frozenset(pair)] += 1
    for pair in combinations(range(len(regions)), 2):
        assert bridges[frozenset(pair)] >= 3, f"regions {pair} can hardly be joined"
    spots = [
        fp
        for fp in blocks(vale, 2)
        if any(vale.terrain(i) is Terrain.RIVER for i in fp)
        and not any(vale.is_printed_hamlet(i) for i in fp)
        and len(touched(fp)) >= 2
    ]
    assert len(spots) == 30
    # a City on the confluence touches all three regions
    city = vale.footprint(Cell.parse("G5"), 3)
    assert city is not None and touched(city) == set(range(len(regions))) == {0, 1, 2}


def test_a1_r37_room_for_a_3x3_block_of_plain_in_at_least_4_separate_areas(vale: GameMap) -> None:
    candidates = open_plain_blocks(vale)
    assert len(candidates) >= 8
    chosen = most_separate(vale, candidates)
    assert len(chosen) >= 4, f"only {origins(vale, chosen)} are separate"
    assert origins(vale, chosen) == ["C1", "K1", "G3", "B6", "L6"]
    # and every region of the vale has such a block
    for region in river_regions(vale):
        assert any(set(fp) <= region for fp in candidates)


def test_a1_r35_castles_and_abbeys_have_plenty_of_dry_3x3_spots(vale: GameMap) -> None:
    # Castles and Abbeys never cover river (R35); many 3×3 spots remain, some with a surcharge
    dry = [
        fp
        for fp in blocks(vale, 3)
        if all(vale.terrain(i) is not Terrain.RIVER and not vale.is_printed_hamlet(i) for i in fp)
    ]
    assert len(dry) == 40
    assert len(dry) > len(open_plain_blocks(vale))


def test_r1_default_map_is_left_right_balanced(vale: GameMap) -> None:
    # no player starts anywhere in particular (A40): the west and east halves have the same terrain
    west: Counter[Terrain] = Counter()
    east: Counter[Terrain] = Counter()
    for i in range(vale.width * vale.height):
        c = vale.cell(i)
        if c.col < 7:
            west[vale.terrain(i)] += 1
        elif c.col > 7:
            east[vale.terrain(i)] += 1
    assert west == east


# -- classification (R36, ruling A11) ------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        (".", Terrain.PLAIN),
        ("f", Terrain.FOREST),
        ("m", Terrain.MOUNTAIN),
        ("~", Terrain.RIVER),
        ("F", Terrain.FOREST),  # plain+forest counts as forest
        ("M", Terrain.MOUNTAIN),  # forest+mountain counts as mountain
        ("P", Terrain.MOUNTAIN),  # plain+mountain counts as mountain (A11)
        ("R", Terrain.RIVER),  # a river cell is neither forest nor mountain
        ("W", Terrain.RIVER),  # any cell containing river is river (A11)
    ],
)
def test_r36_a11_classify_each_terrain_code(code: str, kind: Terrain) -> None:
    assert classify(TERRAIN_CODES[code]) is kind
    m = parse_map(f"size: 3x3\ngrid:\n{code}..\n...\n...\n")
    assert m.terrain(0) is kind
    assert m.features(0) == TERRAIN_CODES[code]


def test_r36_a11_classify_every_mix_river_over_mountain_over_forest_over_plain() -> None:
    order = [Terrain.RIVER, Terrain.MOUNTAIN, Terrain.FOREST, Terrain.PLAIN]
    for n in range(1, 5):
        for mix in combinations(Terrain, n):
            expected = next(t for t in order if t in mix)
            assert classify(frozenset(mix)) is expected, mix


def test_r36_codes_and_features_are_one_to_one() -> None:
    assert len(TERRAIN_CODES) == 9
    assert {CODE_OF_FEATURES[f]: f for f in CODE_OF_FEATURES} == TERRAIN_CODES


# -- broken map files ----------------------------------------------------------------------------

GOOD = """\
name: Tiny
size: 4x3
grid:
.f~.
mW..
..F.
hamlets: A1 D3
"""


def test_a2_small_map_file_parses() -> None:
    m = parse_map(GOOD, source="tiny.map")
    assert (m.name, m.width, m.height) == ("Tiny", 4, 3)
    assert m.codes == ".f~.mW....F."
    assert [str(h) for h in m.hamlets] == ["A1", "D3"]
    assert m.terrain(m.index(Cell.parse("B2"))) is Terrain.RIVER


def test_a2_comments_blank_lines_case_and_commas_are_accepted() -> None:
    text = """
        # a comment line
        NAME: Tiny   # the name
        Size: 4 × 3

        grid:
          .f~.   # row 1
          mW..
          ..F.
        Hamlets: a1, d3
    """
    assert parse_map(text) == parse_map(GOOD)


def test_a2_name_defaults_to_the_source() -> None:
    assert parse_map(GOOD.replace("name: Tiny\n", ""), source="tiny.map").name == "tiny.map"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(GOOD.replace("size: 4x3\n", ""), "tiny.map: missing 'size: COLSxROWS' line", id="missing-size"),
        pytest.param(
            GOOD.replace("size: 4x3", "size: 4 by 3"),
            "tiny.map, line 2: size must look like '15x12'",
            id="bad-size-syntax",
        ),
        pytest.param(GOOD.replace("size: 4x3", "size: 4x"), "tiny.map, line 2: size must look like", id="half-size"),
        pytest.param(
            GOOD.replace("size: 4x3", "size: 27x3"),
            "size 27x3 is out of range (3–26 columns, 3–99 rows)",
            id="size-too-wide",
        ),
        pytest.param(GOOD.replace("..F.\n", "..F.\n....\n"), "the grid has 4 rows but size says 3", id="too-many-rows"),
        pytest.param(GOOD.replace("..F.\n", ""), "the grid has 2 rows but size says 3", id="too-few-rows"),
        pytest.param(GOOD.replace("mW..", "mW."), "grid row 2 has 3 cells but size says 4", id="short-row"),
        pytest.param(GOOD.replace("..F.", "..F.."), "grid row 3 has 5 cells but size says 4", id="long-row"),
        pytest.param(
            GOOD.replace("mW..", "mWx."), "tiny.map, line 5: unknown terrain code(s) 'x'; use one of", id="unknown-code"
        ),
        pytest.param(
            GOOD.replace("A1 D3", "A1 E3"),
            "tiny.map, line 7: printed hamlet E3 is not a cell: columns A–D, rows 1–3",
            id="hamlet-off-board-column",
        ),
        pytest.param(
            GOOD.replace("A1 D3", "A1 D4"),
            "printed hamlet D4 is not a cell: columns A–D, rows 1–3",
            id="hamlet-off-board-row",
        ),
        pytest.param(GOOD.replace("A1 D3", "A1 3D"), "line 7: printed hamlet '3D' is not a cell", id="hamlet-garbled"),
        pytest.param(
            GOOD.replace("A1 D3", "A1 C1"),
            "tiny.map, line 7: printed hamlet C1 is on a river cell",
            id="hamlet-on-river",
        ),
        pytest.param(GOOD.replace("A1 D3", "B2"), "printed hamlet B2 is on a river cell", id="hamlet-on-river-plain"),
        pytest.param(
            GOOD.replace("A1 D3", "A1 D3 a1"),
            "tiny.map, line 7: printed hamlet A1 is listed twice",
            id="duplicate-hamlet",
        ),
        pytest.param(
            "players: 4\n" + GOOD,
            "tiny.map, line 1: expected 'name:', 'size:', 'grid:' or 'hamlets:', got 'players: 4'",
            id="unknown-key",
        ),
        pytest.param(
            GOOD.replace("grid:\n", ""),
            "tiny.map, line 3: expected 'name:', 'size:', 'grid:' or 'hamlets:'",
            id="missing-grid-line",
        ),
    ],
)
def test_a2_broken_map_file_raises_map_error_naming_the_problem(text: str, message: str) -> None:
    with pytest.raises(MapError) as info:
        parse_map(text, source="tiny.map")
    assert message in str(info.value)


def test_a2_unknown_key_after_the_grid_is_reported_as_a_key() -> None:
    text = GOOD.replace("hamlets:", "players: 4\nhamlets:")
    with pytest.raises(MapError, match=r"line 7: expected 'name:', 'size:', 'grid:' or 'hamlets:', got 'players: 4'"):
        parse_map(text, source="tiny.map")


def test_a2_unknown_map_name_lists_the_known_maps() -> None:
    with pytest.raises(MapError) as info:
        load_map("atlantis")
    assert "no map named 'atlantis'; known maps:" in str(info.value)
    assert "default" in str(info.value)


def test_a2_map_name_must_be_a_plain_file_name() -> None:
    with pytest.raises(MapError, match=r"map name '\.\./default': use lower-case letters, digits, '-' or '_'"):
        load_map("../default")
    with pytest.raises(MapError, match="use lower-case letters"):
        load_map("Default")


# -- cells ---------------------------------------------------------------------------------------


def test_r1_cell_parse_and_str_round_trip() -> None:
    for row in range(99):
        for col in range(26):
            cell = Cell(col, row)
            assert Cell.parse(str(cell)) == cell
    assert str(Cell.parse("A1")) == "A1"
    assert Cell.parse("A1") == Cell(0, 0)  # A1 is the top-left cell
    assert Cell.parse("O12") == Cell(14, 11)
    assert Cell.parse(" c4 ") == Cell(2, 3)
    assert repr(Cell(2, 3)) == "Cell(C4)"


@pytest.mark.parametrize("text", ["", "4C", "CC4", "C", "C123", "Ç4", "C-1"])
def test_r1_cell_parse_rejects_garbage_with_an_example(text: str) -> None:
    with pytest.raises(ValueError, match=r"is not a cell: write a column letter and a row number, e\.g\. C4"):
        Cell.parse(text)


def test_r1_cell_parse_rejects_row_zero() -> None:
    with pytest.raises(ValueError):
        Cell.parse("C0")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("C44", "C44 is not a cell: columns A–O, rows 1–12"),
        ("P1", "P1 is not a cell: columns A–O, rows 1–12"),
        ("A13", "A13 is not a cell: columns A–O, rows 1–12"),
        ("A0", "A0 is not a cell: columns A–O, rows 1–12"),
        ("xyz", "'xyz' is not a cell: columns A–O, rows 1–12, e.g. C4"),
        ("", "'' is not a cell: columns A–O, rows 1–12, e.g. C4"),
    ],
)
def test_r1_game_map_parse_cell_names_the_valid_range(vale: GameMap, text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        vale.parse_cell(text)
    assert str(info.value) == message


def test_r1_game_map_parse_cell_accepts_every_cell_on_the_board(vale: GameMap) -> None:
    for i in range(vale.width * vale.height):
        cell = vale.cell(i)
        assert vale.parse_cell(str(cell).lower()) == cell
        assert vale.index(cell) == i
    assert vale.parse_cell("o12") == Cell(14, 11)


def test_a2_plain_map_for_synthetic_tests_is_all_plain() -> None:
    m = plain_map(hamlets=(Cell(2, 2),))
    assert (m.width, m.height) == (15, 12)
    assert {m.terrain(i) for i in range(180)} == {Terrain.PLAIN}
    assert m.is_printed_hamlet(m.index(Cell.parse("C3")))
