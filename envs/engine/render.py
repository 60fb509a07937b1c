"""Text rendering (文本显示): one seat's :class:`~envs.engine.view.PlayerView` and the engine's event log as plain text.

Tiles are shown with the Unicode mahjong glyphs of :data:`envs.core.tiles.GLYPHS` **and** their codes (``5m``, ``5z``),
because terminals draw the glyphs with uneven widths and some fonts lack them.  Nothing hidden from the seat is
shown: the renderer reads only the view, which the engine has already filtered (RULES.md §2.14).

:func:`render_view` lays out::

    chuanma chengdu | phase self | dealer S0 | turn S2 | wall 43
    S0 (dealer)   active  void 筒  score +3   match +3
        melds     碰 5m 🀋🀋🀋
        discards  9m 1s 2s  🀏🀐🀑
    ...
    hand (S2)  🀇🀈🀉🀙🀚  123m 12p
    legal      discard 1m 2m 3m | kong 5m | hu

:func:`render_log` writes one line per event of ``Game.events`` / ``Game.events_for(seat)`` (event types of
:mod:`envs.engine.game`: ``hand_start``, ``deal``, ``exchange``, ``exchange_direction``, ``dingque``, ``play_start``,
``draw``, ``discard``, ``action``, ``claims_resolved``, ``pong``, ``kong``, ``kong_declared``, ``rob_resolved``,
``win``, ``transfer``, ``hand_end``).  Redacted fields are simply left out, and an unknown or malformed event is
written generically (``type: key=value ...``): rendering never raises on a log entry.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from envs.core.actions import Action, ActionType
from envs.core.melds import HIDDEN_TILE, Meld, MeldKind
from envs.core.tiles import GLYPH_BACK, GLYPHS, NUM_KINDS, format_tiles, tile_code
from envs.engine.view import PlayerView

SUIT_NAMES = ("万", "筒", "条")
MELD_NAMES = {
    MeldKind.PONG: "碰",
    MeldKind.KONG: "直杠",
    MeldKind.ANKONG: "暗杠",
    MeldKind.BUKONG: "补杠",
    MeldKind.CHI: "吃",
    MeldKind.FEI: "飞",
}
HOW_NAMES = {
    "zimo": "自摸",
    "dianpao": "点炮",
    "qianggang": "抢杠",
    "instant": "四红中",
    "dianganghua": "点杠花",
    "qinghu": "请胡",
}


# ---- tiles ------------------------------------------------------------------------------------------------------


def _is_kind(k: Any) -> bool:
    return isinstance(k, int) and not isinstance(k, bool) and 0 <= k < NUM_KINDS


def tile_text(k: Any) -> str:
    """``"5m 🀋"`` for a kind; ``"??"`` for a hidden or invalid tile."""
    return f"{tile_code(k)} {GLYPHS[k]}" if _is_kind(k) else "??"


def tiles_text(kinds: Iterable[Any], *, sort: bool = True) -> str:
    """Glyphs then codes of several tiles: ``"🀇🀈🀉 123m"`` (sorted), or in the given order with ``sort=False``."""
    ks = [k for k in kinds if _is_kind(k)]
    if not ks:
        return "-"
    if sort:
        ks.sort()
        return f"{''.join(GLYPHS[k] for k in ks)}  {format_tiles(ks)}"
    return f"{''.join(GLYPHS[k] for k in ks)}  {' '.join(tile_code(k) for k in ks)}"


def counts_text(counts: Sequence[int]) -> str:
    """A 34-count vector as sorted glyphs and codes."""
    return tiles_text([k for k in range(min(len(counts), NUM_KINDS)) for _ in range(max(0, int(counts[k])))])


def meld_text(meld: Meld) -> str:
    """``"碰 5m 🀋🀋🀋"``; a hidden concealed kong is ``"暗杠 ?? 🀫🀫🀫🀫"``; a 飞 names its 听用."""
    name = MELD_NAMES.get(meld.kind, str(meld.kind))
    if meld.tile == HIDDEN_TILE:
        return f"{name} ?? {GLYPH_BACK * 4}"
    glyphs = "".join(GLYPHS[k] for k in meld.natural()) + "".join(GLYPHS[k] for k in meld.wild_kinds)
    if meld.kind is MeldKind.CHI:
        code = format_tiles(meld.represented())
    else:
        code = tile_code(meld.tile)
    if meld.wilds:
        wilds = "+".join(tile_code(k) for k in meld.wild_kinds) if meld.wild_kinds else f"{meld.wilds} wild"
        code += f" (+{wilds})"
    source = f" from S{meld.from_seat}" if meld.from_seat is not None and meld.kind is not MeldKind.ANKONG else ""
    return f"{name} {code} {glyphs}{source}"


def _suit(s: Any) -> str:
    return f"{SUIT_NAMES[s]} {'mps'[s]}" if isinstance(s, int) and 0 <= s < 3 else "-"


def _signed(x: int) -> str:
    return f"{x:+d}" if x else "0"


def _direction(offset: Any, n: int | None) -> str:
    if not isinstance(offset, int):
        return "?"
    names = {1: "next 下家"}
    if n is not None:
        names[n - 1] = "previous 上家"
        if n == 4:
            names[2] = "opposite 对家"
        if n == 2:
            names[1] = "opposite 对家"
    return f"{names.get(offset, 'offset')} (+{offset})"


# ---- actions ----------------------------------------------------------------------------------------------------


def actions_text(actions: Iterable[Action]) -> str:
    """Legal actions by name, discards grouped: ``"discard 1m 2m 5p | kong 5m | hu | pass"``."""
    discards = []
    others = []
    for a in actions:
        if a.type == ActionType.DISCARD and _is_kind(a.tile):
            discards.append(tile_code(a.tile))
        else:
            others.append(str(a))
    parts = ([f"discard {' '.join(discards)}"] if discards else []) + others
    return " | ".join(parts) if parts else "-"


# ---- the view ---------------------------------------------------------------------------------------------------


def _indicator_name(view: PlayerView) -> str:
    """本金 (Yibin: two 听用 kinds) or the 赖子 indicator (Wuhan: one 赖子 kind)."""
    return "本金" if len(view.wild_kinds) == 2 else "赖子 indicator"


def render_view(view: PlayerView) -> str:
    """A readable multi-line text of everything ``view.seat`` may see now."""
    n = view.num_players
    phase = getattr(view.phase, "value", view.phase)
    lines = [
        f"chuanma {view.variant} | phase {phase} | dealer S{view.dealer} | turn S{view.current} | "
        f"wall {view.wall_remaining}"
        + (f" | {_indicator_name(view)} {tile_text(view.indicator)}" if view.indicator is not None else "")
        + (f" | wilds {tiles_text(view.wild_kinds)}" if view.wild_kinds else "")
    ]
    for s in range(n):
        tags = [t for t, on in (("you", s == view.seat), ("dealer", s == view.dealer)) if on]
        tags += [t for t, flags in (("报胡", view.baohu), ("请胡", view.qinghu)) if flags and flags[s]]
        head = f"S{s}" + (f" ({', '.join(tags)})" if tags else "")
        status = {(True, False): "active", (True, True): "active, won", (False, True): "won"}.get(
            (view.active[s], view.won[s]), "out"
        )
        void = view.void_suits[s] if view.void_suits[s] is not None else (view.own_void if s == view.seat else None)
        match = f"   match {_signed(view.match_points[s])}" if view.match_points else ""
        lines.append(f"{head:<16} {status:<12} void {_suit(void):<5} score {_signed(view.scores[s]):<6}{match}")
        melds = view.melds[s]
        if melds:
            lines.append("    melds     " + "   ".join(meld_text(m) for m in melds))
        if view.discards[s]:
            lines.append("    discards  " + tiles_text(view.discards[s], sort=False))
        revealed = view.revealed_hands[s] if s < len(view.revealed_hands) else None
        if revealed is not None and s != view.seat:
            lines.append("    revealed  " + counts_text(revealed))
    for w in view.wins:
        src = f" from S{w.from_seat}" if w.from_seat is not None else ""
        how = HOW_NAMES.get(w.how, w.how)
        lines.append(
            f"win #{w.order + 1}: S{w.seat} on {tile_text(w.tile)}{src} ({w.how} {how}), "
            f"{w.doublings} doublings, {w.payment} per payer"
        )
    lines.append(f"hand (S{view.seat})  {counts_text(view.hand)}")
    if view.drawn_tile is not None:
        lines.append(f"drawn      {tile_text(view.drawn_tile)}")
    if view.claim_tile is not None:
        what = "added kong (rob: 抢杠)" if phase == "rob" else "discard"
        lines.append(f"claim      {tile_text(view.claim_tile)} {what} from S{view.claim_from}")
    if view.exchange_given or view.exchange_received:
        ex = f"exchange   gave {tiles_text(view.exchange_given)}"
        if view.exchange_received:
            ex += f"; received {tiles_text(view.exchange_received)}"
        if view.exchange_offset is not None:
            ex += f"; direction {_direction(view.exchange_offset, n)}"
        lines.append(ex)
    if view.pass_hu_locked:
        locked = "all" if len(view.pass_hu_locked) >= NUM_KINDS else format_tiles(view.pass_hu_locked)
        lines.append(f"locks      过胡 no hu on {locked}")
    if view.pass_pong_locked:
        lines.append(f"locks      过碰 no pong on {format_tiles(view.pass_pong_locked)}")
    if view.to_act:
        lines.append(f"legal      {actions_text(view.legal_actions)}")
    else:
        lines.append("legal      - (waiting)")
    return "\n".join(lines)


# ---- the event log ----------------------------------------------------------------------------------------------


def _seat(x: Any) -> str:
    return f"S{x}" if isinstance(x, int) and not isinstance(x, bool) else "S?"


def _seats(xs: Any) -> str:
    return ", ".join(_seat(x) for x in xs) if isinstance(xs, (list, tuple)) and xs else "-"


def _action_dict_text(a: Any) -> str:
    if not isinstance(a, dict):
        return "?"
    try:
        return str(Action(ActionType[a["type"]], int(a.get("tile", -1)), tuple(int(t) for t in a.get("tiles", ()))))
    except (KeyError, TypeError, ValueError):
        return str(a.get("type", "?")).lower()


def _ev_hand_start(e: dict[str, Any], n: int | None) -> str:
    wall = e.get("wall")
    size = f", wall {len(wall)} tiles" if isinstance(wall, list) else ""
    seed = f", seed {e['seed']!r}" if e.get("seed") is not None else ""
    return f"hand start: variant {e.get('variant', '?')}, dealer {_seat(e.get('dealer'))}{seed}{size}"


def _ev_deal(e: dict[str, Any], n: int | None) -> str:
    tiles = e.get("tiles")
    return f"deal {_seat(e.get('seat'))}" + (f": {tiles_text(tiles)}" if isinstance(tiles, list) else "")


def _ev_exchange(e: dict[str, Any], n: int | None) -> str:
    text = f"exchange {_seat(e.get('seat'))}"
    if isinstance(e.get("given"), list):
        text += f": gave {tiles_text(e['given'])}"
    if isinstance(e.get("received"), list):
        text += f", received {tiles_text(e['received'])}"
    if "from_seat" in e:
        text += f" from {_seat(e['from_seat'])}"
    return text


def _ev_exchange_direction(e: dict[str, Any], n: int | None) -> str:
    return f"exchange direction: {_direction(e.get('offset'), n)}"


def _ev_dingque(e: dict[str, Any], n: int | None) -> str:
    voids = e.get("voids")
    if not isinstance(voids, list):
        raise TypeError("voids")
    return "dingque 定缺: " + ", ".join(f"S{i} {_suit(v)}" for i, v in enumerate(voids))


def _ev_play_start(e: dict[str, Any], n: int | None) -> str:
    return f"play starts: dealer {_seat(e.get('dealer'))}, wall {e.get('wall_remaining', '?')}"


def _ev_draw(e: dict[str, Any], n: int | None) -> str:
    text = f"{_seat(e.get('seat'))} draws " + (tile_text(e["tile"]) if "tile" in e else "a tile")
    return text + (" (replacement 杠后补牌)" if e.get("replacement") else "")


def _ev_discard(e: dict[str, Any], n: int | None) -> str:
    return f"{_seat(e.get('seat'))} discards {tile_text(e.get('tile'))}"


def _ev_action(e: dict[str, Any], n: int | None) -> str:
    phase = e.get("phase", "?")
    if "action" not in e:
        return f"{_seat(e.get('seat'))} decides ({phase})"
    return f"{_seat(e.get('seat'))} [{phase}] {_action_dict_text(e['action'])}"


def _ev_claims(e: dict[str, Any], n: int | None) -> str:
    head = f"claims on {tile_text(e.get('tile'))} from {_seat(e.get('from_seat'))}: "
    if e.get("winners"):
        return head + f"hu by {_seats(e['winners'])}"
    if e.get("claimer") is not None:
        return head + f"{str(e.get('claim', '?')).lower()} by {_seat(e['claimer'])}"
    return head + "none"


def _ev_pong(e: dict[str, Any], n: int | None) -> str:
    return f"{_seat(e.get('seat'))} pongs 碰 {tile_text(e.get('tile'))} from {_seat(e.get('from_seat'))}"


def _ev_kong(e: dict[str, Any], n: int | None) -> str:
    kind = e.get("kind", "kong")
    try:
        name = MELD_NAMES[MeldKind(kind)]
    except ValueError:
        name = str(kind)
    src = f" from {_seat(e['from_seat'])}" if e.get("from_seat") is not None else ""
    return f"{_seat(e.get('seat'))} {kind} {name} {tile_text(e.get('tile'))}{src}"


def _ev_kong_declared(e: dict[str, Any], n: int | None) -> str:
    return f"{_seat(e.get('seat'))} declares an added kong 补杠 {tile_text(e.get('tile'))} (rob window)"


def _ev_rob(e: dict[str, Any], n: int | None) -> str:
    head = f"rob on {tile_text(e.get('tile'))} from {_seat(e.get('from_seat'))}: "
    return head + (f"robbed 抢杠 by {_seats(e['winners'])}" if e.get("winners") else "none")


def _ev_win(e: dict[str, Any], n: int | None) -> str:
    how = e.get("how", "?")
    src = f" from {_seat(e['from_seat'])}" if e.get("from_seat") is not None else ""
    text = (
        f"{_seat(e.get('seat'))} wins on {tile_text(e.get('tile'))}{src} ({how} {HOW_NAMES.get(how, '')}".rstrip()
        + f"): {e.get('doublings', '?')} doublings, {e.get('payment', '?')} per payer"
    )
    bd = e.get("breakdown")
    if isinstance(bd, dict) and bd:
        text += " [" + ", ".join(f"{k} {v}" for k, v in bd.items()) + "]"
    if isinstance(e.get("hand"), list):
        text += f"; hand {tiles_text(e['hand'])}"
    return text


def _ev_transfer(e: dict[str, Any], n: int | None) -> str:
    return f"  {_seat(e.get('payer'))} -> {_seat(e.get('receiver'))}: {e.get('amount', '?')} ({e.get('reason', '?')})"


def _ev_hand_end(e: dict[str, Any], n: int | None) -> str:
    how = "exhausted 流局" if e.get("exhausted") else "finished"
    if e.get("bankrupt"):
        how += ", bankrupt"
    scores = e.get("scores")
    sc = " ".join(f"S{i} {_signed(v)}" for i, v in enumerate(scores)) if isinstance(scores, list) else "?"
    return f"hand ends ({how}): {sc}; next dealer {_seat(e.get('next_dealer'))}"


def _ev_indicator(e: dict[str, Any], n: int | None) -> str:
    return f"indicator flipped {tile_text(e.get('tile'))}: wildcards {tiles_text(e.get('wild_kinds', []))}"


def _ev_fei(e: dict[str, Any], n: int | None) -> str:
    wilds = tiles_text(e.get("wilds", []))
    return f"{_seat(e.get('seat'))} 飞 {tile_text(e.get('tile'))} with {wilds} from {_seat(e.get('from_seat'))}"


def _ev_ti(e: dict[str, Any], n: int | None) -> str:
    return f"{_seat(e.get('seat'))} 提 {tile_text(e.get('tile'))}, {tile_text(e.get('returned'))} back to the hand"


def _ev_chi(e: dict[str, Any], n: int | None) -> str:
    return f"{_seat(e.get('seat'))} chi 吃 {tiles_text(e.get('run', []))} from {_seat(e.get('from_seat'))}"


def _ev_special_kong(e: dict[str, Any], n: int | None) -> str:
    name = "红中杠" if e.get("type") == "red_kong" else "赖子杠"
    return f"{_seat(e.get('seat'))} plays {tile_text(e.get('tile'))} out: {name}"


def _ev_baohu(e: dict[str, Any], n: int | None) -> str:
    return f"{_seat(e.get('seat'))} declares 报胡 (ready)"


def _ev_baohu_forfeit(e: dict[str, Any], n: int | None) -> str:
    return f"{_seat(e.get('seat'))} passed a win after 报胡 and can no longer win"


def _ev_qinghu(e: dict[str, Any], n: int | None) -> str:
    return f"{_seat(e.get('seat'))} discards {tile_text(e.get('tile'))} announcing 请胡"


_EVENT_TEXT = {
    "hand_start": _ev_hand_start,
    "deal": _ev_deal,
    "exchange": _ev_exchange,
    "exchange_direction": _ev_exchange_direction,
    "dingque": _ev_dingque,
    "play_start": _ev_play_start,
    "draw": _ev_draw,
    "discard": _ev_discard,
    "action": _ev_action,
    "claims_resolved": _ev_claims,
    "pong": _ev_pong,
    "kong": _ev_kong,
    "kong_declared": _ev_kong_declared,
    "rob_resolved": _ev_rob,
    "win": _ev_win,
    "transfer": _ev_transfer,
    "hand_end": _ev_hand_end,
    "indicator": _ev_indicator,
    "fei": _ev_fei,
    "ti": _ev_ti,
    "chi": _ev_chi,
    "red_kong": _ev_special_kong,
    "laizi_kong": _ev_special_kong,
    "baohu": _ev_baohu,
    "baohu_forfeit": _ev_baohu_forfeit,
    "qinghu": _ev_qinghu,
}

_SKIP_KEYS = ("type", "visible_to", "redact", "config", "wall")


def _generic(event: Any) -> str:
    if not isinstance(event, dict):
        return f"? {event!r}"
    fields = " ".join(f"{k}={v!r}" for k, v in event.items() if k not in _SKIP_KEYS)
    return f"{event.get('type', '?')}: {fields}".rstrip()


def render_event(event: Any, num_players: int | None = None) -> str:
    """One readable line for one event (generic ``type: key=value`` for unknown or malformed events)."""
    if isinstance(event, dict):
        fn = _EVENT_TEXT.get(event.get("type"))  # type: ignore[arg-type]
        if fn is not None:
            try:
                return fn(event, num_players)
            except Exception:  # a malformed entry falls back to the generic line
                return _generic(event)
    return _generic(event)


def render_log(events: Iterable[Any], num_players: int | None = None) -> str:
    """The event log as text, one line per event.

    The table size (for naming exchange directions) is ``num_players`` when given, else read from ``hand_start`` or
    the ``dingque`` event, else the highest seat index seen plus one.
    """
    events = list(events)
    n = num_players if num_players is not None else _infer_players(events)
    return "\n".join(render_event(ev, n) for ev in events)


def _infer_players(events: list[Any]) -> int | None:
    top = -1
    for ev in events:
        if not isinstance(ev, dict):
            continue
        config = ev.get("config")
        if ev.get("type") == "hand_start" and isinstance(config, dict) and isinstance(config.get("num_players"), int):
            return config["num_players"]
        if ev.get("type") == "dingque" and isinstance(ev.get("voids"), list):
            return len(ev["voids"])
        for key in ("seat", "from_seat", "payer", "receiver"):
            v = ev.get(key)
            if isinstance(v, int) and not isinstance(v, bool):
                top = max(top, v)
    return top + 1 if top >= 1 else None
