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

_bands: OrderedDict[tuple[int, int, int], bytes] = OrderedDict()
_lock = Lock()  # pictures are drawn in several threads at once


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _palette_chunk() -> bytes:
    return _chunk(b"PLTE", bytes((palette().getpalette() or [])[:768]).ljust(768, b"\0"))


_PLTE: list[bytes] = []


def _deflated(scanlines: bytes) -> bytes:
    """One band's scanlines as raw deflate ended by a full flush (from the cache if seen before)."""
    key = (hash(scanlines), zlib.crc32(scanlines), len(scanlines))
    with _lock:
        found = _bands.get(key)
        if found is not None:
            _bands.move_to_end(key)
            return found
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
    found = packer.compress(scanlines) + packer.flush(zlib.Z_FULL_FLUSH)
    with _lock:
        _bands[key] = found
        while len(_bands) > BANDS_KEPT:
            _bands.popitem(last=False)
    return found


def indexed(im: Image.Image) -> Image.Image:
    """``im`` in the fixed palette (as ``paint.encode`` quantises it)."""
    return im if im.mode == "P" else im.quantize(palette=palette(), dither=Image.Dither.NONE)


def encode(im: Image.Image) -> bytes:
    """PNG bytes of ``im`` in the fixed palette, its unchanged bands taken from the cache; the same
    image always gives the same bytes."""
    pixels = indexed(im)
    width, height = pixels.size
    raw = pixels.tobytes()
    if not _PLTE:
        _PLTE.append(_palette_chunk())
    parts = [_ZLIB_HEADER]
    check = 1
    for top in range(0, height, BAND_ROWS):
        rows = range(top, min(height, top + BAND_ROWS))
        scanlines = b"".join(b"\0" + raw[y * width:(y + 1) * width] for y in rows)  # filter 0: none
        check = zlib.adler32(scanlines, check)
        parts.append(_deflated(scanlines))
    parts += [_EMPTY_FINAL_BLOCK, struct.pack(">I", check)]
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8 bits, palette, no interlace
    return b"".join((_SIGNATURE, _chunk(b"IHDR", header), _PLTE[0], _chunk(b"IDAT", b"".join(parts)),
                     _chunk(b"IEND", b"")))


__all__ = ["BAND_ROWS", "encode", "indexed"]
