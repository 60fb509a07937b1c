"""Judge (裁判): the rule questions the engine asks about one seat's tiles, over :mod:`envs.scoring.shanten` and
:mod:`envs.scoring.scorer`.

The engine keeps every hand as 34 *physical* counts (wildcard tiles counted under their own kind, e.g. 红中 at 31,
a Yibin 听用 or the Wuhan 赖子 under its suited/honor kind).  :mod:`envs.scoring.shanten` wants the natural tiles and a
wildcard count separately, and the scorer wants a :class:`~envs.scoring.scorer.WinContext`; this module does the
translation and keeps the hot questions (can this hand win, which tiles does it wait on) on the table-driven fast paths.
Full scoring runs only when a value is needed.

``wilds`` (the kinds acting as wildcards in this hand) defaults to 红中 for ``wild = "hongzhong"`` and to none
otherwise; the engine passes the 听用 pair (Yibin) or the 赖子 (Wuhan) once the indicator is flipped.

* :func:`waits_mask` — bitmask of the kinds whose **natural** tile completes a 3k+1 hand (the void suit and wildcard
  kinds are never candidates, nor a kind the seat already holds four times counting its melds).  It answers the
  *shape* question; variant minimums (断卡根 小胡, Wuhan 开口 / 2-5-8 pair) are left to the scorer.  Wuhan's
  any-arrangement 将一色 / 风一色 (乱将 / 乱风) count as shapes.
* :func:`is_win` — is a 3k+2 hand complete (shape only; the caller checks the void suit).
* :func:`score` — the scorer's :class:`~envs.scoring.scorer.ScoreResult` for one win in context.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from envs.core.melds import Meld
from envs.core.rule_config import RuleConfig
from envs.core.tiles import NUM_KINDS, NUM_SUITED, RED
from envs.scoring.interpret import HandSpec, is_complete
from envs.scoring.scorer import ScoreResult, WinContext, score_win
from envs.scoring.shanten import is_winning, shanten, waits

_MASKS: dict[tuple, int] = {}

_JIANG_MASK = sum(1 << k for k in range(NUM_SUITED) if k % 9 in (1, 4, 7))
"""Wuhan 将一色 kinds: every suited 2, 5, 8."""
_FENG_MASK = sum(1 << k for k in (27, 28, 29, 30, 32, 33))
"""Wuhan 风一色 kinds: the winds, 发 and 白 (never 中)."""


def suited_mask(cfg: RuleConfig, void: int | None) -> int:
    """Suited kinds of the variant outside ``void``: what a Sichuan wildcard may represent and a seat may win on."""
    key = (cfg.suits, cfg.num_players, void)
    mask = _MASKS.get(key)
    if mask is None:
        mask = 0
        for k in cfg.kinds:
            if k < NUM_SUITED and (void is None or k // 9 != void):
                mask |= 1 << k
        _MASKS[key] = mask
    return mask


def _kinds_mask(cfg: RuleConfig, void: int | None) -> int:
    """Kinds a seat may hold and win with: the suited kinds outside ``void``, plus the honors of a variant with
    honor tiles other than the 红中 wildcard (Wuhan: winds and dragons; 中 itself is dropped later)."""
    mask = suited_mask(cfg, void)
    if cfg.wild == "laizi":
        key = ("honors", cfg.extra_tiles, void)
        extra = _MASKS.get(key)
        if extra is None:
            extra = 0
            for k in cfg.kinds:
                if k >= NUM_SUITED:
                    extra |= 1 << k
            _MASKS[key] = extra
        mask |= extra
    return mask


def _wild_allowed(cfg: RuleConfig, void: int | None) -> int:
    """Kinds a wildcard may represent (RULES §2.13): Wuhan 赖子 any kind but 中; otherwise suited kinds outside void."""
    if cfg.wild == "laizi":
        return _kinds_mask(cfg, void) & ~(1 << RED)
    return suited_mask(cfg, void)


def default_wilds(cfg: RuleConfig) -> tuple[int, ...]:
    """The wildcard kinds known from the configuration alone (红中); flipped wildcards need the indicator."""
    return (RED,) if cfg.wild == "hongzhong" else ()


def _binding_meld_counts(counts: list[int], wilds: int, melds: Sequence[Meld], extra: int) -> list[int] | None:
    """The meld counts that can limit the wildcards (None when none can): a meld kind's four-copy cap binds only
    when its concealed copies, ``extra`` tiles still to come (1: a wait's candidate) and every wildcard could pass
    it.  Dropping the others keeps :mod:`envs.scoring.shanten` on its fast uncapped path with the same answer (with
    melds the hand is too short for seven pairs, the only shape that looks at melds otherwise).

    Only a meld's natural tiles count: a Yibin 飞 holds a 听用 standing for its kind, and after drawing the fourth
    natural copy the represented total is five.  The shape answer is then a superset of the scorer's, which applies
    the four-copy limit to represented copies; the engine asks the scorer before offering such a win.
    """
    mc = None
    for m in melds:
        for k in m.natural():
            if counts[k] + extra + wilds + m.size > 4:
                if mc is None:
                    mc = [0] * NUM_KINDS
                mc[k] += 1
    return mc


_WAITS_MEMO: dict[tuple, int] = {}
_WAITS_MEMO_LIMIT = 1 << 16  # entries; the memo is cleared when full


def waits_mask(
    cfg: RuleConfig,
    counts: list[int],
    melds: Sequence[Meld],
    void: int | None,
    wilds: tuple[int, ...] | None = None,
) -> int:
    """Kinds whose natural tile completes the 3k+1 hand ``counts`` (physical counts) — see the module docstring.

    Memoised (bounded) by the rules it depends on, the wildcard kinds, the counts, the melds and the void suit: a
    hand often comes back unchanged (a drawn tile discarded at once).
    """
    if wilds is None:
        wilds = default_wilds(cfg)
    key = (
        cfg.suits,
        cfg.wild,
        cfg.extra_tiles,
        cfg.hz_red_discard_claimable,
        cfg.fan_table == "wuhan",
        cfg.wild_ignores_four_copy_limit,
        cfg.hand_size,
        wilds,
        void,
        bytes(counts),
        tuple((m.kind, m.tile, m.wilds) for m in melds) if melds else (),
    )
    mask = _WAITS_MEMO.get(key)
    if mask is None:
        mask = _waits_mask(cfg, counts, melds, void, wilds)
        if len(_WAITS_MEMO) >= _WAITS_MEMO_LIMIT:
            _WAITS_MEMO.clear()
        _WAITS_MEMO[key] = mask
    return mask


def may_wait_on(cfg: RuleConfig, counts: list[int], melds: Sequence[Meld], wilds: tuple[int, ...], k: int) -> bool:
    """A cheap necessary condition for bit ``k`` of :func:`waits_mask` (same arguments, ``counts`` a list of the 34
    physical counts of a 3k+1 hand): False only when ``k`` cannot be a wait.

    Without wildcards in the hand a wait completes the hand itself (standard shape or seven pairs), which one
    memoised win check on ``counts`` plus ``k`` answers; wildcard hands, wildcard kinds, a fifth copy and Wuhan's
    uniform hands (乱将 / 乱风 wait on any kind of their set) answer True and leave it to :func:`waits_mask`.
    ``counts`` is probed in place and restored.
    """
    if k in wilds or counts[k] >= 4:
        return True
    for w in wilds:
        if counts[w]:
            return True
    if cfg.fan_table == "wuhan" and _uniform_mask(counts, melds):
        return True
    counts[k] += 1
    try:
        return is_winning(counts)
    finally:
        counts[k] -= 1


def _complete_past_limit(cfg: RuleConfig, natural: list[int], n_wild: int, melds: Sequence[Meld], allowed: int) -> bool:
    """Shape completeness when wildcards may make a fifth copy (``wild_ignores_four_copy_limit``, AMB-14): the
    scorer's own search (:func:`envs.scoring.interpret.is_complete`) without the four-copy limit; the table-driven
    :mod:`envs.scoring.shanten` counts at most four copies of a kind."""
    spec = HandSpec(tuple(natural), n_wild, tuple(melds), allowed, sets=cfg.hand_size // 3, four_copy_limit=False)
    return is_complete(spec)


def _split_wilds(counts: Sequence[int], wilds: tuple[int, ...]) -> tuple[list[int], int]:
    natural = list(counts)
    n = 0
    for k in wilds:
        n += natural[k]
        natural[k] = 0
    return natural, n


def _waits_mask(
    cfg: RuleConfig, counts: list[int], melds: Sequence[Meld], void: int | None, wilds: tuple[int, ...]
) -> int:
    cand = _kinds_mask(cfg, void)
    for k in wilds:
        cand &= ~(1 << k)
    if cfg.fan_table == "wuhan":
        cand &= ~(1 << RED)
    for m in melds:
        for k in m.represented():
            if counts[k] + m.represented().count(k) >= 4:  # held four times counting this meld
                cand &= ~(1 << k)
    n_wild = sum(counts[k] for k in wilds)
    if n_wild and cfg.wild_ignores_four_copy_limit:
        natural, n_wild = _split_wilds(counts, wilds)
        allowed = _wild_allowed(cfg, void)
        found = []
        for t in range(NUM_KINDS):
            if cand >> t & 1 and natural[t] < 4:  # a kind held four times is no wait (module docstring)
                natural[t] += 1
                if _complete_past_limit(cfg, natural, n_wild, melds, allowed):
                    found.append(t)
                natural[t] -= 1
    elif n_wild:
        natural, n_wild = _split_wilds(counts, wilds)
        allowed = _wild_allowed(cfg, void)
        caps = _binding_meld_counts(natural, n_wild, melds, 1) if melds else None
        # 向听 pre-check: a hand two or more tiles from complete waits on nothing.  shanten's complete hands are the
        # ones waits looks for (same shapes, wildcards, caps), so it never drops a wait; most hands are not ready,
        # and shanten costs a quarter of the 34-candidate scan.  The uncapped shanten comes first: dropping the
        # meld caps only adds target hands, so it is never above the capped one, and it stays on the table-driven
        # path (a capped suit costs a (max, +) programme); the capped one decides only for near-ready hands
        if (sum(natural) + n_wild) % 3 == 1 and (
            shanten(natural, n_wild, allowed_mask=allowed) >= 1
            or (caps is not None and shanten(natural, n_wild, allowed_mask=allowed, meld_counts=caps) >= 1)
        ):
            found = []
        else:
            found = waits(natural, n_wild, allowed_mask=allowed, candidates_mask=cand)
            if caps is not None and found:
                # the capped waits are among the uncapped ones (the caps only remove candidates and targets):
                # recheck just those with the caps
                found = waits(
                    natural, n_wild, allowed_mask=allowed, meld_counts=caps, candidates_mask=_bits(found) & cand
                )
    else:
        natural = counts
        found = waits(counts, candidates_mask=cand)
    mask = 0
    for t in found:
        mask |= 1 << t
    if cfg.fan_table == "wuhan":
        mask |= _uniform_mask(natural, melds) & cand
    if cfg.wild == "hongzhong" and cfg.hz_red_discard_claimable and counts[RED] < 4:
        counts[RED] += 1
        try:
            if is_win(cfg, counts, melds, void, wilds):
                mask |= 1 << RED
        finally:
            counts[RED] -= 1
    return mask


def _bits(kinds: Sequence[int]) -> int:
    mask = 0
    for k in kinds:
        mask |= 1 << k
    return mask


def _uniform_mask(natural: Sequence[int], melds: Sequence[Meld]) -> int:
    """Wuhan 乱将 / 乱风: the uniform kind set (将 or 风) holding every natural tile and meld, else 0."""
    held = 0
    for k in range(NUM_KINDS):
        if natural[k]:
            held |= 1 << k
    for m in melds:
        for k in m.represented():
            held |= 1 << k
    for mask in (_JIANG_MASK, _FENG_MASK):
        if held & ~mask == 0:
            return mask
    return 0


def is_win(
    cfg: RuleConfig,
    counts: list[int],
    melds: Sequence[Meld],
    void: int | None,
    wilds: tuple[int, ...] | None = None,
) -> bool:
    """Whether the 3k+2 hand ``counts`` (physical counts) plus ``melds`` is a complete hand (shape only)."""
    if wilds is None:
        wilds = default_wilds(cfg)
    n_wild = 0
    for k in wilds:
        n_wild += counts[k]
    if cfg.fan_table == "wuhan":
        natural, n_wild = _split_wilds(counts, wilds)
        if _uniform_mask(natural, melds):
            return True
    if n_wild:
        natural, n_wild = _split_wilds(counts, wilds)
        allowed = _wild_allowed(cfg, void)
        if cfg.wild_ignores_four_copy_limit:
            return _complete_past_limit(cfg, natural, n_wild, melds, allowed)
        caps = _binding_meld_counts(natural, n_wild, melds, 0) if melds else None
        # without the meld caps there are only more ways to complete the hand: a hand that does not win uncapped
        # (the table-driven path, the common answer) does not win capped either
        if caps is not None and not is_winning(natural, n_wild, allowed_mask=allowed):
            return False
        return is_winning(natural, n_wild, allowed_mask=allowed, meld_counts=caps)
    return is_winning(counts)


def score(
    cfg: RuleConfig,
    counts: Sequence[int],
    melds: Sequence[Meld],
    win_tile: int,
    *,
    void: int | None,
    dealer: bool,
    self_drawn: bool,
    robbing_kong: bool = False,
    after_kong: bool = False,
    last_tile: bool = False,
    tianhu: bool = False,
    dihu: bool = False,
    paid_as_discard: bool = False,
    **extra: Any,
) -> ScoreResult:
    """Score one win: ``counts`` are the physical concealed counts **including** ``win_tile``.

    ``extra`` holds the variant fields of :class:`~envs.scoring.scorer.WinContext` (``indicator``, 断卡根 ``baohu`` /
    ``qinghu`` / ``on_qinghu_discard`` / ``payer_baohu`` / ``kongs_after_baohu``, Wuhan ``red_kongs`` /
    ``laizi_kongs``).

    Memoised (bounded) on the configuration object and the exact :class:`~envs.scoring.scorer.WinContext`: a claim
    window often values one hand on one tile for several payers.  The result is shared between equal calls (read-only).
    """
    ctx = WinContext(
        concealed=tuple(counts),
        win_tile=win_tile,
        melds=tuple(melds),
        self_drawn=self_drawn,
        after_kong=after_kong,
        robbing_kong=robbing_kong,
        last_tile=last_tile,
        void_suit=void,
        tianhu=tianhu,
        dihu=dihu,
        is_dealer=dealer,
        paid_as_discard=paid_as_discard,
        **extra,
    )
    key = (id(cfg), ctx)
    hit = _SCORE_MEMO.get(key)
    if hit is not None and hit[0] is cfg:
        return hit[1]
    result = score_win(cfg, ctx)
    if len(_SCORE_MEMO) >= _SCORE_MEMO_LIMIT:
        _SCORE_MEMO.clear()
    _SCORE_MEMO[key] = (cfg, result)  # the entry holds cfg, so its id is not reused while the entry lives
    return result


_SCORE_MEMO: dict[tuple[int, WinContext], tuple[RuleConfig, ScoreResult]] = {}
_SCORE_MEMO_LIMIT = 1 << 12  # entries; cleared when full
