"""PNG encoding that compresses only what changed: a picture's rows are compressed in bands, and a
band whose pixels were compressed before (the same rows of the same board on the last turn's card,
on a preview, on a list of places) is taken from a bounded cache instead.

A PNG's pixels are one zlib stream of its scanlines (each row: a filter byte, then its pixels). Each
band is compressed on its own as raw deflate ended by a full flush, which leaves it byte-aligned and
independent of what came before (but the row above it, given to its compressor as a dictionary: its
first row may repeat it), so bands join into one valid stream: the zlib header, the bands in order, an
empty final block and the Adler-32 of all the scanlines. A band's compressed bytes depend on its pixels
and the row above only, so the same picture always gives the same bytes, whatever the cache held.
Bands are compressed by zlib-ng's fastest level (``DEFLATE``: the ``zlib-ng`` package; zlib's where it
is missing): compressing is most of a card's time when most of its rows are new (a board's first card,
a busy preview), and zlib-ng's takes about 0.85 ms for a card's rows where zlib's takes 2.1 (its PNG
about 17 % larger).

The pixels are those of ``paint.encode`` (the same fixed palette, quantised the same way): a picture
decodes to exactly what Pillow's encoder of that module would give.

A card (``encode_sketch``) is not even painted whole: its drawing calls (``render.sketch``) are compared
with those of its board's last card, and only the rows where they differ are painted (over a strip of
the ground), put in the palette and compressed; the other bands are the last card's.
"""

from __future__ import annotations

import struct
import zlib
from collections import OrderedDict
from collections.abc import Hashable
from threading import Lock
from types import ModuleType

from PIL import Image

from .paint import palette
from .sketch import Op, Sketch, changed_rows

#: rows a band: smaller bands are found again more often and redrawn more closely round a change,
#: larger ones compress faster (each band ends a deflate block) and a little better; 16, 24 and 32 cost
#: about the same on cards after a turn (24: 29 bands a card)
BAND_ROWS = 24


def _compressor() -> tuple[ModuleType, int]:
    """The deflate a band is compressed with, and its level: zlib-ng's fastest (the ``zlib-ng`` package:
    on a card about 2.5 times as fast as zlib's fastest level, its bytes about 17 % more) when it is
    installed, else zlib's fastest. Either gives a valid stream of the same pixels; a process uses one of
    them, so its bytes are always the same for the same picture."""
    try:
        from zlib_ng import zlib_ng
    except ImportError:  # (a platform without its wheel: zlib, about 1.3 ms more a card)
        return zlib, 1
    return zlib_ng, 1


#: the module that compresses the bands (``zlib_ng.zlib_ng`` or ``zlib``: the same interface) and its level
DEFLATE, LEVEL = _compressor()
#: compressed bands remembered (about 3.4 kB each, 29 to a card: at most about 40 MB, the boards of
#: about 130 games at once)
BANDS_KEPT = 11000
_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_EMPTY_FINAL_BLOCK = b"\x03\x00"  # a final fixed-Huffman block with no data
_ZLIB_HEADER = b"\x78\x01"  # deflate, 32 kB window, the fastest level (a hint only)
_ADLER_BASE = 65521

#: compressed bands by the CRC-32 of their scanlines after the row above (the compressor's dictionary),
#: the Adler-32 of the band's own, their length and the row above's: the band's raw deflate (64 bits of
#: checksums: two different bands collide once in about 2**64 pairs)
_bands: OrderedDict[tuple[int, int, int, int], bytes] = OrderedDict()
_lock = Lock()  # pictures are drawn in several threads at once


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _palette_chunk() -> bytes:
    return _chunk(b"PLTE", bytes((palette().getpalette() or [])[:768]).ljust(768, b"\0"))


_PLTE: list[bytes] = []


def adler32_combine(first: int, second: int, length: int) -> int:
    """The Adler-32 of two byte strings one after the other, from the first's, the second's and the
    second's length (as zlib's ``adler32_combine``)."""
    rem = length % _ADLER_BASE
    low = (first & 0xFFFF) + (second & 0xFFFF) + _ADLER_BASE - 1
    high = (rem * (first & 0xFFFF)) % _ADLER_BASE + (first >> 16) + (second >> 16) + _ADLER_BASE - rem
    return (high % _ADLER_BASE) << 16 | (low % _ADLER_BASE)


def indexed(im: Image.Image) -> Image.Image:
    """``im`` in the fixed palette (as ``paint.encode`` quantises it)."""
    return im if im.mode == "P" else im.quantize(palette=palette(), dither=Image.Dither.NONE)


#: a band of a picture: its scanlines as raw deflate, their Adler-32 and their length
Band = tuple[bytes, int, int]


def _bands_of(pixels: Image.Image, first: int = 0) -> list[Band]:
    """The bands of ``pixels`` (in the palette) compressed, or from the cache: rows ``first`` to the
    last of a picture whose rows are ``pixels``' (``first`` 0: all of them) or one below its row above
    the first (``first`` 1: that row, then the rows from a band's first).

    A band is raw deflate ended by a full flush, its compressor given the row above as its dictionary
    (the band's first row may repeat it), so that its bytes depend on its rows and the row above only."""
    width, height = pixels.size
    # the scanlines at once: the pixels pasted one column in, on a first column of zeros (filter 0: none)
    lined = Image.new("P", (width + 1, height), 0)
    lined.paste(pixels, (1, 0))
    scanlines = memoryview(lined.tobytes())
    line = width + 1
    band = line * BAND_ROWS
    crc32, adler32 = DEFLATE.crc32, DEFLATE.adler32
    pieces = []  # each band: the row above (if any) and its rows, how long the row above is, the cache key
    for top in range(first * line, len(scanlines), band):
        above = line if top else 0
        piece = scanlines[top - above:top + band]
        pieces.append((piece, above, (crc32(piece), adler32(piece[above:]), len(piece), above)))
    with _lock:
        found = [_bands.get(key) for _, _, key in pieces]
        for (_, _, key), deflated in zip(pieces, found, strict=True):
            if deflated is not None:
                _bands.move_to_end(key)
    out: list[Band] = []
    new: list[tuple[tuple[int, int, int, int], bytes]] = []
    compressobj, flush = DEFLATE.compressobj, DEFLATE.Z_FULL_FLUSH
    for (piece, above, key), deflated in zip(pieces, found, strict=True):
        if deflated is None:
            packer = (compressobj(LEVEL, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY, piece[:above]) if above
                      else compressobj(LEVEL, zlib.DEFLATED, -15))
            deflated = packer.compress(piece[above:]) + packer.flush(flush)
            new.append((key, deflated))
        out.append((deflated, key[1], key[2] - above))
    if new:
        with _lock:
            _bands.update(new)
            while len(_bands) > BANDS_KEPT:
                _bands.popitem(last=False)
    return out


def _png(size: tuple[int, int], bands: list[Band]) -> bytes:
    """The PNG file of a picture of ``size`` from its bands."""
    if not _PLTE:
        _PLTE.append(_palette_chunk())
    check = 1
    for _, adler, length in bands:
        check = adler32_combine(check, adler, length)
    idat = b"".join((_ZLIB_HEADER, *(deflated for deflated, _, _ in bands), _EMPTY_FINAL_BLOCK,
                     struct.pack(">I", check)))
    header = struct.pack(">IIBBBBB", *size, 8, 3, 0, 0, 0)  # 8 bits, palette, no interlace
    return b"".join((_SIGNATURE, _chunk(b"IHDR", header), _PLTE[0], _chunk(b"IDAT", idat), _chunk(b"IEND", b"")))


def encode(im: Image.Image) -> bytes:
    """PNG bytes of ``im`` in the fixed palette, its unchanged bands taken from the cache; the same
    image always gives the same bytes."""
    return _png(im.size, _bands_of(indexed(im)))


#: the last picture drawn over a ground for each board (``encode_sketch``) remembered: its ground, its
#: drawing calls and its bands (up to about 150 kB, mostly bands the band cache shares)
LAST_KEPT = 128
#: the bands of the grounds themselves (a board's first picture is drawn over its ground's)
GROUNDS_KEPT = 24
Drawn = tuple[Image.Image, list[Op], list[Band]]  #: a picture's ground, drawing calls and bands
_last: OrderedDict[Hashable, Drawn] = OrderedDict()
_grounds: OrderedDict[Hashable, Drawn] = OrderedDict()  # by the id of the ground (checked: ``is``)
#: the last picture drawn over each ground, whoever's board it was (by the id of the ground, checked:
#: ``is``): a board with no last picture of its own (a new game's, or one the bound above let go) is
#: compared with it as well as with its ground; games on one map start alike, so a new game's cards
#: differ from the last game's in a few rows (the names), not in every row drawn
_latest: OrderedDict[Hashable, Drawn] = OrderedDict()


def _remember(memo: OrderedDict[Hashable, Drawn], key: Hashable, entry: Drawn, kept: int) -> None:
    with _lock:
        memo[key] = entry
        memo.move_to_end(key)
        while len(memo) > kept:
            memo.popitem(last=False)


def _ground_entry(ground: Image.Image) -> Drawn:
    with _lock:
        found = _grounds.get(id(ground))
    if found is not None and found[0] is ground:
        return found
    entry: Drawn = (ground, [], _bands_of(indexed(ground)))
    _remember(_grounds, id(ground), entry, GROUNDS_KEPT)
    return entry


def encode_sketch(ground: Image.Image, sketch: Sketch, board: Hashable) -> bytes:
    """PNG bytes of the picture ``sketch`` draws over ``ground`` (an image never changed), as
    ``encode(im)`` gives them for that picture, drawing and compressing only the rows where it differs
    from the last picture drawn for ``board`` over the same ground (else from the ground itself, or
    from the last picture drawn over the ground for any board if fewer rows differ from that): the
    other rows' bands are that picture's. ``board`` names whose last picture is compared; any value
    gives the same bytes (the rows compared are those where the drawing calls differ)."""
    with _lock:
        last = _last.get(board)
        latest = _latest.get(id(ground))
    if last is not None and last[0] is ground:
        _, bands, changed = _over(last, sketch)
    else:  # over the ground, or over the last picture drawn over it if fewer rows differ from that
        bases = [_over(_ground_entry(ground), sketch)]
        if latest is not None and latest[0] is ground:
            bases.append(_over(latest, sketch))
        _, bands, changed = min(bases, key=lambda base: base[0])
    width, height = ground.size
    bands = list(bands)
    b = 0
    while b < len(bands):  # each run of changed bands drawn as one strip of rows
        if not changed[b]:
            b += 1
            continue
        end = b
        while end < len(bands) and changed[end]:
            end += 1
        top, bottom = b * BAND_ROWS, min(height, end * BAND_ROWS)
        above = 1 if top else 0  # (the row above, painted too: the first band's dictionary)
        strip = ground.crop((0, top - above, width, bottom))
        sketch.replay(strip, top - above)
        bands[b:end] = _bands_of(indexed(strip), above)
        b = end
    drawn = (ground, sketch.ops, bands)
    _remember(_last, board, drawn, LAST_KEPT)
    _remember(_latest, id(ground), drawn, GROUNDS_KEPT)
    return _png((width, height), bands)


def _over(base: Drawn, sketch: Sketch) -> tuple[int, list[Band], bytearray]:
    """What drawing ``sketch`` over the picture ``base`` (drawn over the same ground) takes: how many
    bands differ, ``base``'s bands, and which of them differ (1): a band's rows, and the row above it
    (its compressor's dictionary)."""
    _, before, bands = base
    changed = bytearray(len(bands))
    for top, bottom in changed_rows(before, sketch.ops):
        for b in range(max(0, top // BAND_ROWS), min(len(bands), bottom // BAND_ROWS + 1)):
            changed[b] = 1
    return sum(changed), bands, changed


__all__ = ["BAND_ROWS", "encode", "encode_sketch", "indexed"]
