"""A game as one web page that steps through it: a single HTML file, no server, nothing fetched.

The pictures are inside the page as data URIs (each distinct picture once: a board a turn left alone
is the same picture as before); the words are made by the service (bot/service/exports.py, through
the wording layer) and only placed here. Buttons ⏮ ◀ ▶ ⏭, a round list, and the keys ← → Home End
step through it; the address's ``#step-N`` opens step N and follows the steps, so a step can be linked.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class PageCard:
    """A picture of a step: ``image`` indexes the page's pictures; ``lead`` ones are shown large."""

    image: int
    alt: str
    lead: bool = True


@dataclass(frozen=True)
class PageStep:
    """One step: its heading, its lines, its round and its pictures; ``label`` says which step it is
    ("Step 3 of 28")."""

    heading: str
    lines: tuple[str, ...]
    round: int
    label: str
    cards: tuple[PageCard, ...] = ()


@dataclass(frozen=True)
class PageWords:
    """The page's own words: its title, the buttons' titles and the round list's label and entries
    (``round_entry`` has a ``{round}`` field), as the service words them."""

    title: str
    first: str
    prev: str
    next: str
    last: str
    rounds: str
    round_entry: str
    keys: str


def data_uri(data: bytes, mime: str = "image/webp") -> str:
    """``data`` inline, as a ``data:`` URI."""
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def replay_page(words: PageWords, steps: Sequence[PageStep], images: Sequence[str]) -> str:
    """The page: ``images`` are data URIs, ``steps`` refer to them by index. Raises ValueError
    without steps."""
    if not steps:
        raise ValueError("a page needs at least one step")
    data = {
        "images": list(images),
        "steps": [{"heading": s.heading, "lines": list(s.lines), "round": s.round, "label": s.label,
                   "cards": [{"image": c.image, "alt": c.alt, "lead": c.lead} for c in s.cards]} for s in steps],
        "roundEntry": words.round_entry,
    }
    payload = json.dumps(data, ensure_ascii=True).replace("</", "<\\/")
    esc = html.escape
    return _TEMPLATE.format(title=esc(words.title), first=esc(words.first), prev=esc(words.prev),
                            next=esc(words.next), last=esc(words.last), rounds=esc(words.rounds),
                            keys=esc(words.keys), data=payload, script=_SCRIPT, style=_STYLE,
                            icon_first=_icon("M5 4h2v16H5zM19 4v16L8 12z"), icon_prev=_icon("M18 4v16L6 12z"),
                            icon_next=_icon("M6 4v16l12-8z"), icon_last=_icon("M17 4h2v16h-2zM5 4v16l11-8z"))


def _icon(path: str) -> str:
    """A button's picture, drawn (no font has to hold ⏮ and ⏭)."""
    return (f'<svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true">'
            f'<path d="{path}" fill="currentColor"/></svg>')


_STYLE = """
body { margin: 0; background: #f3efe6; color: #2b2620; font: 16px/1.45 system-ui, sans-serif; }
header { position: sticky; top: 0; background: #2b2620; color: #f8f4ea; padding: 10px 16px;
         display: flex; flex-wrap: wrap; gap: 10px; align-items: center; z-index: 1; }
header h1 { font-size: 18px; margin: 0 12px 0 0; }
header button { min-width: 48px; height: 36px; padding: 4px 10px; line-height: 0; border-radius: 8px; border: 0;
                background: #f8f4ea; color: #2b2620; cursor: pointer; }
header button:disabled { opacity: .35; cursor: default; }
header select { font-size: 16px; padding: 4px; border-radius: 6px; }
#label { font-weight: 600; }
#keys { opacity: .7; font-size: 13px; }
main { max-width: 1180px; margin: 0 auto; padding: 14px; }
#heading { font-size: 20px; margin: 6px 0 8px; }
#lines { margin: 0 0 14px; padding-left: 20px; }
#cards img { display: block; width: 100%; max-width: 1140px; height: auto; margin: 0 0 10px;
             border-radius: 8px; }
#cards .small { display: flex; gap: 10px; }
#cards .small img { width: calc(50% - 5px); }
"""

_SCRIPT = """
(function () {
  var data = JSON.parse(document.getElementById('game').textContent);
  var steps = data.steps, last = steps.length - 1, at = 0;
  var $ = function (id) { return document.getElementById(id); };
  var select = $('round');
  var seen = {};
  steps.forEach(function (s, i) {
    if (i === 0 || seen[s.round] !== undefined) { return; }
    seen[s.round] = i;
    var o = document.createElement('option');
    o.value = String(i);
    o.textContent = data.roundEntry.replace('{round}', String(s.round));
    select.appendChild(o);
  });
  function img(card) {
    var im = document.createElement('img');
    im.src = data.images[card.image];
    im.alt = card.alt;
    im.title = card.alt;
    return im;
  }
  function show(n) {
    at = Math.max(0, Math.min(last, n));
    var s = steps[at];
    $('label').textContent = s.label;
    $('heading').textContent = s.heading;
    var ul = $('lines');
    ul.textContent = '';
    s.lines.forEach(function (line) {
      var li = document.createElement('li');
      li.textContent = line;
      ul.appendChild(li);
    });
    var box = $('cards');
    box.textContent = '';
    var small = document.createElement('div');
    small.className = 'small';
    s.cards.forEach(function (c) { (c.lead ? box : small).appendChild(img(c)); });
    if (small.childNodes.length) { box.appendChild(small); }
    $('first').disabled = $('prev').disabled = at === 0;
    $('next').disabled = $('last').disabled = at === last;
    var r = seen[s.round];
    select.value = at === 0 || r === undefined ? '' : String(r);
    document.body.setAttribute('data-step', String(at));
    if (location.hash !== '#step-' + at) { history.replaceState(null, '', '#step-' + at); }
  }
  $('first').onclick = function () { show(0); };
  $('prev').onclick = function () { show(at - 1); };
  $('next').onclick = function () { show(at + 1); };
  $('last').onclick = function () { show(last); };
  select.onchange = function () { if (select.value !== '') { show(Number(select.value)); } };
  document.addEventListener('keydown', function (e) {
    if (e.target === select) { return; }
    var to = {ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: last}[e.key];
    if (to !== undefined) { e.preventDefault(); show(to); }
  });
  function fromHash() {
    var m = /^#step-(\\d+)$/.exec(location.hash);
    return m ? Number(m[1]) : 0;
  }
  window.addEventListener('hashchange', function () { show(fromHash()); });
  show(fromHash());
})();
"""

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; \
script-src 'unsafe-inline'">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
<header>
<h1>{title}</h1>
<button id="first" title="{first}" aria-label="{first}">{icon_first}</button>
<button id="prev" title="{prev}" aria-label="{prev}">{icon_prev}</button>
<button id="next" title="{next}" aria-label="{next}">{icon_next}</button>
<button id="last" title="{last}" aria-label="{last}">{icon_last}</button>
<select id="round" aria-label="{rounds}"><option value="">{rounds}</option></select>
<span id="label"></span>
<span id="keys">{keys}</span>
</header>
<main>
<h2 id="heading"></h2>
<ul id="lines"></ul>
<div id="cards"></div>
</main>
<script id="game" type="application/json">{data}</script>
<script>{script}</script>
</body>
</html>
"""

__all__ = ["PageCard", "PageStep", "PageWords", "data_uri", "replay_page"]
