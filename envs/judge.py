"""Judge (裁判): the rule questions the engine asks about one seat's tiles, over :mod:`envs.hand` and
:mod:`envs.scoring`.

The engine keeps every hand as 34 *physical* counts (wildcard tiles counted under their own kind, e.g. 红中 at 31).
:mod:`envs.hand` wants the natural tiles and a wildcard count separately, and the scorer wants a
:class:`~envs.scoring.WinContext`; this module does the translation and keeps the hot questions (can this hand win,
which tiles does it wait on) on the table-driven fast paths.  Full scoring runs only when a value is needed.

* :func:`waits_mask` — bitmask of the kinds whose **natural** tile completes a 3k+1 hand (the void suit and wildcard
  kinds are never candidates, nor a kind the seat already holds four times counting its melds).
* :func:`is_win` — is a 3k+2 hand complete (structure only; the caller checks the void suit).
* :func:`score` — the scorer's :class:`~envs.scoring.ScoreResult` for one win in context.
"""

from __future__ import annotations

from collections.abc import Sequence

from envs.config import RuleConfig
from envs.hand import is_winning, waits
from envs.melds import Meld
from envs.scoring import ScoreResult, WinContext, score_win
from envs.tiles import NUM_KINDS, NUM_SUITED, RED

_MASKS: dict[tuple[str, int, int | None], int] = {}


def suited_mask(cfg: RuleConfig, void: int | None) -> int:
    """Suited kinds of the variant outside ``void``: what a wildcard may represent and what a seat may win on."""
    key = (cfg.suits, cfg.num_players, void)
    mask = _MASKS.get(key)
    if mask is None:
        mask = 0
        for k in cfg.kinds:
            if k < NUM_SUITED and (void is None or k // 9 != void):
                mask |= 1 << k
        _MASKS[key] = mask
    return mask


def _binding_meld_counts(counts: list[int], wilds: int, melds: Sequence[Meld], extra: int) -> list[int] | None:
    """The meld counts that can limit the wildcards (None when none can): a meld kind's four-copy cap binds only
    when its concealed copies, ``extra`` tiles still to come (1: a wait's candidate) and every wildcard could pass
    it.  Dropping the others keeps :mod:`envs.hand` on its fast uncapped path with the same answer (with melds the
    hand is too short for seven pairs, the only shape that looks at melds otherwise)."""
    mc = None
    for m in melds:
        for k in m.represented():
            if counts[k] + extra + wilds + m.size > 4:
                if mc is None:
                    mc = [0] * NUM_KINDS
                mc[k] += 1
    return mc


_WAITS_MEMO: dict[tuple, int] = {}
_WAITS_MEMO_LIMIT = 1 << 16  # entries; the memo is cleared when full


def waits_mask(cfg: RuleConfig, counts: list[int], melds: Sequence[Meld], void: int | None) -> int:
    """Kinds whose natural tile completes the 3k+1 hand ``counts`` (physical counts) — see the module docstring.

    Memoised (bounded) by the rules it depends on, the counts, the melds and the void suit: a hand often comes
    back unchanged (a drawn tile discarded at once).
    """
    key = (
        cfg.suits,
        cfg.wild,
        cfg.hz_red_discard_claimable,
        void,
        bytes(counts),
        tuple((m.kind, m.tile, m.wilds) for m in melds) if melds else (),
    )
    mask = _WAITS_MEMO.get(key)
    if mask is None:
        mask = _waits_mask(cfg, counts, melds, void)
        if len(_WAITS_MEMO) >= _WAITS_MEMO_LIMIT:
            _WAITS_MEMO.clear()
        _WAITS_MEMO[key] = mask
    return mask


def _waits_mask(cfg: RuleConfig, counts: list[int], melds: Sequence[Meld], void: int | None) -> int:
    cand = suited_mask(cfg, void)
    for m in melds:
        if counts[m.tile] + m.size >= 4:
            cand &= ~(1 << m.tile)
    if cfg.wild == "hongzhong" and counts[RED]:
        natural = counts[:]
        wilds = natural[RED]
        natural[RED] = 0
        found = waits(
            natural,
            wilds,
            allowed_mask=suited_mask(cfg, void),
            meld_counts=_binding_meld_counts(natural, wilds, melds, 1) if melds else None,
            candidates_mask=cand,
        )
    else:
        found = waits(counts, candidates_mask=cand)
    mask = 0
    for t in found:
        mask |= 1 << t
    if cfg.wild == "hongzhong" and cfg.hz_red_discard_claimable and counts[RED] < 4:
        counts[RED] += 1
        try:
            if is_win(cfg, counts, melds, void):
                mask |= 1 << RED
        finally:
            counts[RED] -= 1
    return mask


def is_win(cfg: RuleConfig, counts: list[int], melds: Sequence[Meld], void: int | None) -> bool:
    """Whether the 3k+2 hand ``counts`` (physical counts) plus ``melds`` is a complete hand (shape only)."""
    if cfg.wild == "hongzhong" and counts[RED]:
        natural = counts[:]
        wilds = natural[RED]
        natural[RED] = 0
        return is_winning(
            natural,
            wilds,
            allowed_mask=suited_mask(cfg, void),
            meld_counts=_binding_meld_counts(natural, wilds, melds, 0) if melds else None,
        )
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
) -> ScoreResult:
    """Score one win: ``counts`` are the physical concealed counts **including** ``win_tile``."""
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
    )
    return score_win(cfg, ctx)
