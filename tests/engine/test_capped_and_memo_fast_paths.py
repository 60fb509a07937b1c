"""Fast paths of the engine (uncapped pre-checks, `may_wait_on`, claim-window shortcuts, the score memo, 宜宾 discard
scan, AEC info filter) give the answers of the full computations they skip."""

from __future__ import annotations

import random

import pytest

from envs.core.rule_config import load_variant
from envs.core.tiles import RED
from envs.engine.game import Game
from envs.scoring import judge
from envs.scoring.shanten import is_winning, shanten, waits

WILD_PRESETS = ("hongzhong", "yibin", "wuhan")


def _reference_waits_mask(cfg, counts, melds, void, wilds) -> int:
    """judge._waits_mask without any pre-check: the capped candidate scan for every hand."""
    cand = judge._kinds_mask(cfg, void)
    for k in wilds:
        cand &= ~(1 << k)
    if cfg.fan_table == "wuhan":
        cand &= ~(1 << RED)
    for m in melds:
        for k in m.represented():
            if counts[k] + m.represented().count(k) >= 4:
                cand &= ~(1 << k)
    natural, n_wild = judge._split_wilds(counts, wilds)
    if n_wild:
        caps = judge._binding_meld_counts(natural, n_wild, melds, 1) if melds else None
        allowed = judge._wild_allowed(cfg, void)
        found = waits(natural, n_wild, allowed_mask=allowed, meld_counts=caps, candidates_mask=cand)
    else:
        found = waits(natural, candidates_mask=cand)
    mask = sum(1 << t for t in found)
    if cfg.fan_table == "wuhan":
        mask |= judge._uniform_mask(natural, melds) & cand
    if cfg.wild == "hongzhong" and cfg.hz_red_discard_claimable and counts[RED] < 4:
        c = list(counts)
        c[RED] += 1
        if _reference_is_win(cfg, c, melds, void, wilds):
            mask |= 1 << RED
    return mask


def _reference_is_win(cfg, counts, melds, void, wilds) -> bool:
    """judge.is_win with the meld caps always applied (no uncapped pre-check)."""
    natural, n_wild = judge._split_wilds(counts, wilds)
    if cfg.fan_table == "wuhan" and judge._uniform_mask(natural, melds):
        return True
    if n_wild:
        caps = judge._binding_meld_counts(natural, n_wild, melds, 0) if melds else None
        return is_winning(natural, n_wild, allowed_mask=judge._wild_allowed(cfg, void), meld_counts=caps)
    return is_winning(list(counts))


def _hands(cfg, seeds: range):
    """Every seat's hand after every decision of randomly played hands that prefer melds (so that meld caps
    bind often): ``(counts, melds, void, wild kinds)``."""
    for seed in seeds:
        g = Game(cfg, seed=seed, record_events=False)
        rng = random.Random(seed)
        while not g.is_over:
            seat = g.pending[0]
            legal = g.legal_actions(seat)
            melding = [a for a in legal if a.type.name in ("PONG", "KONG", "FEI", "CHI")]
            g.step(seat, rng.choice(melding) if melding and rng.random() < 0.7 else rng.choice(legal))
            for q in range(g.n):
                yield list(g.hands[q]), list(g.melds[q]), g.void[q], g.wild_kinds


@pytest.mark.parametrize(
    ("variant", "rules"),
    [("hongzhong", {}), ("hongzhong", {"hz_red_discard_claimable": True}), ("yibin", {}), ("wuhan", {})],
)
def test_uncapped_prechecks_give_the_capped_answers(variant, rules):
    """judge.waits_mask / is_win: the uncapped 向听 pre-check, the uncapped candidate filter and the uncapped
    win pre-check answer exactly as the capped computations on every hand met in meld-heavy random play."""
    cfg = load_variant(variant, **rules)
    waits_checked = wins_checked = capped = 0
    for counts, melds, void, wilds in _hands(cfg, range(14)):
        size = sum(counts) % 3
        natural, n_wild = judge._split_wilds(counts, wilds)
        binding = bool(n_wild and melds and judge._binding_meld_counts(natural, n_wild, melds, 1))
        if size == 1:
            assert judge._waits_mask(cfg, list(counts), melds, void, wilds) == _reference_waits_mask(
                cfg, counts, melds, void, wilds
            ), (counts, melds, void, wilds)
            waits_checked += 1
            capped += binding
        elif size == 2:
            assert judge.is_win(cfg, list(counts), melds, void, wilds) == _reference_is_win(
                cfg, counts, melds, void, wilds
            ), (counts, melds, void, wilds)
            wins_checked += 1
    assert waits_checked > 1000 and wins_checked > 300 and capped > 200


@pytest.mark.parametrize("variant", WILD_PRESETS)
def test_uncapped_shanten_is_never_above_the_capped_one(variant):
    """The property the pre-checks rest on: dropping the meld caps never raises 向听 nor loses a win or a wait."""
    cfg = load_variant(variant)
    seen = 0
    for counts, melds, void, wilds in _hands(cfg, range(8)):
        natural, n_wild = judge._split_wilds(counts, wilds)
        if not (n_wild and melds) or sum(counts) % 3 == 0:
            continue
        caps = judge._binding_meld_counts(natural, n_wild, melds, 1 if sum(counts) % 3 == 1 else 0)
        if caps is None:
            continue
        allowed = judge._wild_allowed(cfg, void)
        assert shanten(natural, n_wild, allowed_mask=allowed) <= shanten(
            natural, n_wild, allowed_mask=allowed, meld_counts=caps
        )
        if sum(counts) % 3 == 1:
            assert set(waits(natural, n_wild, allowed_mask=allowed, meld_counts=caps)) <= set(
                waits(natural, n_wild, allowed_mask=allowed)
            )
        else:
            assert is_winning(natural, n_wild, allowed_mask=allowed) >= is_winning(
                natural, n_wild, allowed_mask=allowed, meld_counts=caps
            )
        seen += 1
    assert seen > 100


ALL_PRESETS = ("chengdu", "xueliu", "hongzhong", "yibin", "duankagen", "chiyu", "two_player", "wuhan")


@pytest.mark.parametrize("variant", ALL_PRESETS)
def test_may_wait_on_never_drops_a_wait(variant):
    """judge.may_wait_on is a necessary condition of the waits mask: on every 3k+1 hand of random play and every
    kind, False only where the full mask has no bit (and the probed hand is left as it was)."""
    cfg = load_variant(variant)
    checked = skipped = 0
    for counts, melds, void, wilds in _hands(cfg, range(6)):
        if sum(counts) % 3 != 1:
            continue
        full = judge._waits_mask(cfg, list(counts), melds, void, wilds)
        before = list(counts)
        for k in cfg.kinds:
            if not judge.may_wait_on(cfg, counts, melds, wilds, k):
                assert not full >> k & 1, (counts, melds, void, wilds, k)
                skipped += 1
            checked += 1
        assert counts == before
    assert checked > 5000 and skipped > checked // 2


def _trace(cfg, seed: int) -> list:
    """Everything observable of one seeded random hand: each decision's legal actions, the events, the result."""
    g = Game(cfg, seed=seed)
    rng = random.Random(seed)
    out = []
    while not g.is_over:
        seat = g.pending[0]
        legal = g.legal_actions(seat)
        out.append((seat, g.phase, tuple(legal), tuple(g.pending)))
        g.step(seat, rng.choice(legal))
    out.append((g.events, g.transfers, g.scores, g.result))
    return out


@pytest.mark.parametrize("variant", ALL_PRESETS)
def test_games_are_unchanged_by_the_claim_window_shortcuts(variant, monkeypatch):
    """Seeded random hands play exactly the same (legal actions, pending seats, events, transfers, result) with
    the may_wait_on filter and may_win asked first, and with the whole waits mask computed before every HU offer."""
    cfg = load_variant(variant)
    seeds = range(30)
    real = judge.may_wait_on
    answers = []

    def counted(*args):
        answers.append(real(*args))
        return answers[-1]

    monkeypatch.setattr(judge, "may_wait_on", counted)
    fast = [_trace(cfg, s) for s in seeds]
    # the reference: no filter, and every seat's whole waits mask computed before may_win is asked (the old order)
    monkeypatch.setattr(judge, "may_wait_on", lambda *args: True)
    rules_type = type(Game(cfg, seed=0, record_events=False)._rules)
    may_win = rules_type.may_win

    def waits_first(self, game, seat):
        if sum(game.hands[seat]) % 3 == 1:  # a HU offer (the self-draw check holds 3k+2 tiles)
            game._seat_waits(seat)
        return may_win(self, game, seat)

    monkeypatch.setattr(rules_type, "may_win", waits_first)
    slow = [_trace(cfg, s) for s in seeds]
    assert fast == slow
    assert answers.count(False) > 1000 and True in answers  # the filter skipped many waits masks


class _NoMemo(dict):
    """A memo that never remembers."""

    def get(self, key, default=None):
        return default


@pytest.mark.parametrize("variant", ALL_PRESETS)
def test_games_are_unchanged_by_the_score_memo(variant, monkeypatch):
    """judge.score's memo: seeded random hands play exactly the same with every win scored afresh."""
    cfg = load_variant(variant)
    seeds = range(30)
    judge._SCORE_MEMO.clear()
    fast = [_trace(cfg, s) for s in seeds]
    assert judge._SCORE_MEMO or variant in ("chengdu", "xueliu", "chiyu", "two_player")
    monkeypatch.setattr(judge, "_SCORE_MEMO", _NoMemo())
    slow = [_trace(cfg, s) for s in seeds]
    assert fast == slow


def test_yibin_leaves_discard_matches_the_kind_scan():
    """宜宾 _leaves_discard (a difference of sums) answers as the scan over every kind it replaced."""
    from envs.engine.variants import yibin

    cfg = load_variant("yibin")
    checked = 0
    for seed in range(20):
        g = Game(cfg, seed=seed, record_events=False)
        rng = random.Random(seed)
        while not g.is_over:
            for q in range(g.n):
                h, wild = g.hands[q], g.wild_kinds
                for k in cfg.kinds:
                    for removed in ({k: min(h[k], 2)}, {k: min(h[k], 1), **{w: min(h[w], 1) for w in wild}}):
                        expected = any(kind not in wild and h[kind] - removed.get(kind, 0) > 0 for kind in cfg.kinds)
                        assert yibin._leaves_discard(g, q, removed) == expected
                        checked += 1
            seat = g.pending[0]
            g.step(seat, rng.choice(g.legal_actions(seat)))
    assert checked > 10000


@pytest.mark.parametrize("variant", ALL_PRESETS)
def test_aec_infos_match_the_reference_filter(variant):
    """AEC env: after every step each agent's info holds the step's events as ``_events_for`` filters them (fresh
    dicts, none shared between agents or with the engine's log), the step's transfers and the scores."""
    from envs import sichuan_mahjong_v0 as aec

    env = aec.raw_env(variant=variant, match=False)
    rng = random.Random(3)
    steps = 0
    for seed in range(6):
        env.reset(seed=seed)
        while env.agents:
            obs, _, terminated, truncated, _ = env.last()
            game = env.game
            cursor, n_transfers = len(game.events), len(game.transfers)
            if terminated or truncated:
                env.step(None)
                continue
            legal = [i for i, m in enumerate(obs["action_mask"]) if m]
            env.step(rng.choice(legal))
            steps += 1
            new = game.events[cursor:]
            rows = [(t.payer, t.receiver, t.amount, t.reason) for t in game.transfers[n_transfers:]]
            seen_ids = set()
            for agent, info in env.infos.items():
                seat = env.agent_name_mapping[agent]
                if not info or info.get("seat") != seat or len(info["events"]) != len(aec._events_for(new, seat)):
                    continue  # an agent left earlier (its info is from its last step) or an exchange pick
                assert info["events"] == aec._events_for(new, seat)
                assert info["transfers"] == rows and info["scores"] == game.scores
                assert info["scores"] is not game.scores and info["transfers"] is not rows
                for ev in info["events"]:
                    assert all(ev is not orig for orig in new) and id(ev) not in seen_ids
                    seen_ids.add(id(ev))
    assert steps > 200
