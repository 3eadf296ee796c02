"""PNG encoding that compresses only what changed: a picture's rows are compressed in bands, and a
band whose pixels were compressed before (the same rows of the same board on the last turn's card,
on a preview, on a list of places) is taken from a bounded cache instead.

A PNG's pixels are one zlib stream of its scanlines (each row: a filter byte, then its pixels). Each
band is compressed on its own as raw deflate ended by a full flush, which leaves it byte-aligned and
independent of what came before, so bands join into one valid stream: the zlib header, the bands in
order, an empty final block and the Adler-32 of all the scanlines. A band's compressed bytes depend
on its pixels only, so the same picture always gives the same bytes, whatever the cache held.

The pixels are those of ``paint.encode`` (the same fixed palette, quantised the same way): a picture
decodes to exactly what Pillow's encoder of that module would give.
"""

from __future__ import annotations

import struct
import zlib
from collections import OrderedDict
from threading import Lock

from PIL import Image

from .paint import palette

#: rows a band: smaller bands are found again more often, larger ones compress a little better
BAND_ROWS = 16
#: zlib's level for a band (1: the fastest; its pictures are a few percent larger than at 3)
LEVEL = 1
#: compressed bands remembered (about 2 kB each, 43 to a card: at most about 35 MB, the boards of
#: about 130 games at once)
BANDS_KEPT = 16384
_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_EMPTY_FINAL_BLOCK = b"\x03\x00"  # a final fixed-Huffman block with no data
_ZLIB_HEADER = b"\x78\x01"  # deflate, 32 kB window, the fastest level (a hint only)
_ADLER_BASE = 65521

#: compressed bands by the (hash, Adler-32, length) of their scanlines: the band's raw deflate
_bands: OrderedDict[tuple[int, int, int], bytes] = OrderedDict()
_lock = Lock()  # pictures are drawn in several threads at once


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _palette_chunk() -> bytes:
    return _chunk(b"PLTE", bytes((palette().getpalette() or [])[:768]).ljust(768, b"\0"))


_PLTE: list[bytes] = []


def _deflated(scanlines: memoryview) -> tuple[bytes, int]:
    """One band's scanlines as raw deflate ended by a full flush (from the cache if seen before), and
    their Adler-32."""
    check = zlib.adler32(scanlines)
    key = (hash(scanlines), check, len(scanlines))
    with _lock:
        found = _bands.get(key)
        if found is not None:
            _bands.move_to_end(key)
            return found, check
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
    found = packer.compress(scanlines) + packer.flush(zlib.Z_FULL_FLUSH)
    with _lock:
        _bands[key] = found
        while len(_bands) > BANDS_KEPT:
            _bands.popitem(last=False)
    return found, check


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


def encode(im: Image.Image) -> bytes:
    """PNG bytes of ``im`` in the fixed palette, its unchanged bands taken from the cache; the same
    image always gives the same bytes."""
    pixels = indexed(im)
    width, height = pixels.size
    # the scanlines at once: the pixels pasted one column in, on a first column of zeros (filter 0: none)
    lined = Image.new("P", (width + 1, height), 0)
    lined.paste(pixels, (1, 0))
    scanlines = memoryview(lined.tobytes())
    if not _PLTE:
        _PLTE.append(_palette_chunk())
    band = (width + 1) * BAND_ROWS
    parts = [_ZLIB_HEADER]
    check = 1
    for top in range(0, len(scanlines), band):
        rows = scanlines[top:top + band]
        deflated, adler = _deflated(rows)
        parts.append(deflated)
        check = adler32_combine(check, adler, len(rows))
    parts += [_EMPTY_FINAL_BLOCK, struct.pack(">I", check)]
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8 bits, palette, no interlace
    return b"".join((_SIGNATURE, _chunk(b"IHDR", header), _PLTE[0], _chunk(b"IDAT", b"".join(parts)),
                     _chunk(b"IEND", b"")))


__all__ = ["BAND_ROWS", "encode", "indexed"]
