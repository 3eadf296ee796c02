"""render.sketch: a card's drawing calls recorded, replayed, and compared with another card's."""

from __future__ import annotations

from PIL import Image

from render.sketch import Sketch, changed_rows


def _sprite(colour: tuple[int, int, int, int], size: tuple[int, int] = (6, 10)) -> Image.Image:
    return Image.new("RGBA", size, colour)


def test_replayed_calls_paint_what_the_calls_paint_and_a_strip_its_rows() -> None:
    red, blue = _sprite((200, 0, 0, 255)), _sprite((0, 0, 200, 128))
    direct = Image.new("RGB", (20, 30), (250, 250, 250))
    sketch = Sketch(direct.size)
    for canvas in (direct, sketch):
        canvas.paste(red, (2, 3), red)
        canvas.paste(blue, (5, 8), blue)
    from PIL import ImageDraw
    ImageDraw.Draw(direct).rectangle((1, 12, 15, 20), fill=(0, 120, 0))
    ImageDraw.Draw(direct).line((0, 25, 19, 25), fill=(9, 9, 9), width=2)
    sketch.rectangle((1, 12, 15, 20), fill=(0, 120, 0))
    sketch.line((0, 25, 19, 25), fill=(9, 9, 9), width=2)
    whole = Image.new("RGB", (20, 30), (250, 250, 250))
    sketch.replay(whole)
    assert whole.tobytes() == direct.tobytes()
    strip = Image.new("RGB", (20, 9), (250, 250, 250))
    sketch.replay(strip, 10)  # rows 10 to 18
    assert strip.tobytes() == direct.crop((0, 10, 20, 19)).tobytes()


def test_the_rows_that_may_differ_are_those_of_calls_added_removed_changed_or_reordered() -> None:
    a, b, c = _sprite((1, 2, 3, 255)), _sprite((4, 5, 6, 255)), _sprite((7, 8, 9, 255))

    def sketch(*calls: tuple[Image.Image, int, int]) -> Sketch:
        out = Sketch((40, 80))
        for sprite, x, y in calls:
            out.paste(sprite, (x, y), sprite)
        return out

    old = sketch((a, 0, 0), (b, 0, 5), (c, 0, 40))
    assert changed_rows(old.ops, sketch((a, 0, 0), (b, 0, 5), (c, 0, 40)).ops) == []
    assert changed_rows(old.ops, sketch((a, 0, 0), (b, 0, 5), (c, 0, 41)).ops) == [(41, 51), (40, 50)]  # moved
    assert changed_rows(old.ops, sketch((a, 0, 0), (c, 0, 40)).ops) == [(5, 15)]  # removed
    assert changed_rows(old.ops, sketch((a, 0, 0), (b, 0, 5), (a, 0, 20), (c, 0, 40)).ops) == [(20, 30)]  # added
    swapped = changed_rows(old.ops, sketch((b, 0, 5), (a, 0, 0), (c, 0, 40)).ops)  # a and b overlap: order counts
    assert any(top <= 5 and bottom >= 10 for top, bottom in swapped)
