"""Value-seeking baseline (价值智能体): greedy speed, but among near-equal options steer toward valuable hands.

The agent keeps :class:`agents.greedy.GreedyAgent`'s exchange, 定缺 and void-first play, and changes how a discard
is chosen.  For every candidate discard whose shanten is within ``slack`` of the best (``slack`` is 0 once the wall
holds fewer than ``late_wall`` tiles), it estimates the **expected income** of the remaining hand as the
best of several *plans* (:mod:`agents.valuation` gives each plan's doublings in the variant being played):

==============  =============================================================================================
plan            shanten / useful tiles / value
==============  =============================================================================================
standard        the hand's shanten and live effective tiles; when ready, the exact payment of every wait
                (:func:`agents.valuation.wait_payments`), weighted by its live copies; otherwise 平胡 plus
                the roots (根) held and 清一色 when the hand is already one suit
清一色 flush     shanten with every off-suit tile dead, for the dominant suit (all melds in it, at most
                ``max_off_suit`` tiles outside it)
七对 pairs       closed-form seven-pairs shanten (no melds; not in 武汉, where seven pairs never wins)
对对胡 triplets  closed-form all-triplets shanten; each useful copy also counts once more for the pong chance
断幺九 simples   with ``duanyao_plan`` and where :meth:`VariantValues.simples_bonus` measures 断幺九 (红中; not
                断卡根): shanten with every 1 and 9 dead, no meld of a terminal, worth the standard plan's
                doublings plus 断幺九's
==============  =============================================================================================

A plan's worth is ``P(complete) × (win_value(payment) + exit value)``:

* ``P`` comes from :func:`agents.valuation.completion_probability`: the chance to make ``shanten + 1`` useful draws in
  the agent's remaining turns (wall / active players), the first step at the hand's real useful-tile rate, the
  later ones at the plan's typical rate, opponents' discards counting on the last step (and on every step of the
  all-triplets plan: pongs); when an opponent's win would end the hand (two players, the last two of a 血战, or
  ``continuation = "single"``) each turn also carries a *hazard* from the opponents' estimated readiness.
* ``win_value`` weighs self-draw income (paid by every active opponent, with 加底 / 加番) against discard wins; in
  the 红中 variant a hand that still holds 红中 loses the 杀鬼 doubling.
* the **exit value** (``exit_weight`` × one typical payment per active opponent) is what winning saves besides its
  income: a 血战 winner leaves the hand and pays nothing more, and a two-player win denies the opponent's (0 in 血流,
  where winners stay).

To this the estimate adds the **readiness at exhaustion**: the chance to become ready (``shanten`` useful draws)
times ``exhaustion_weight`` (default 1.0 in 血流, where every hand is exhausted, 0 in 武汉, which has no 查叫, else
0.3) × one typical payment per active opponent — a ready hand avoids paying 查大叫 to the ready ones.  The discard
with the highest estimate wins; ties fall back to the greedy order.  With the default ``slack = 0`` only discards of
the best shanten compete (the estimates never buy value with speed; measured: a slack of 1 lost to the greedy agent).

Pongs: a pong that does not worsen the shanten (the greedy rule) is taken only when the best estimate after it is at
least ``pong_keep`` times the estimate without it (so a pong that breaks a flush or seven pairs is declined).  The
same test applies to 飞 (宜宾) and 吃 (武汉) claims, except that a Wuhan hand that has not opened yet (开口 is required
to win, which the estimate does not model) takes any pong or chi the greedy rule accepts.  The other variant actions
(红中杠, 赖子杠, 提, 报胡, 请胡) are the greedy agent's (:mod:`agents.variant_play`).  In 武汉 a ready hand's waits
count only when the scorer accepts them (a 2-5-8 pair, 将, for a small win, or a big win); a hand ready by shape
alone is valued one step away.
Discard wins (``pass_win``, off by default): a discard win (点炮, or a robbed kong, 抢杠) is declined when the ready
hand's estimate (the standard plan of the hand as it stands: the chance to win later, by self-draw paid by every
active opponent with its bonus, or on another discard) is above ``pass_win`` × the win's income now plus its exit
value.  Self-draws are always taken.  A declined tile stays barred for discard wins until the own next draw
(``pass_hu_lock``), which the estimate does not model.
Kongs: a kong may cost ``kong_slack`` steps of shanten while the wall holds at least ``2 × late_wall`` tiles (a
kong pays at once and adds a root).

武汉 Wuhan (RULES.md §4.8): plans are priced by the Wuhan fan table (:mod:`agents.valuation`: 开口 and 硬胡
doublings, ``wuhan_big_base`` per big win, per-loser payments capped at the 封顶, all losers paying); a ready
hand's waits are priced by the engine's scorer (:func:`agents.valuation.wuhan_wait_payments`), so a wait that
wins only as a big win (碰碰胡 or 清一色 without a 2-5-8 pair) counts; the 清一色 plan counts the 吃 runs and never
uses honors, the 碰碰胡 plan is off once the hand holds a 吃 (chi forbids it) and also builds honor triplets; there is
no 根 and no 查叫 (``exhaustion_weight`` defaults to 0).  The 吃 runs are read from the observation's ``chis``
plane (their kinds are not in :class:`agents.features.Seen`).  Measured against greedy (training/BASELINES.md):
tuning walls (seed 1, 1000) +8.97 [+2.36, +15.58] (the Sichuan pricing before: +7.98 [+2.84, +13.12]); held-out
walls (seed 2026, 3000) +16.94 [+12.61, +21.27].

Red-dragon knob: ``hongzhong_policy`` adds ``"shagui_by_value"`` (the default here): the last 红中 is a discard
candidate, compared by the same estimate (its waits are scored without 红中, i.e. with 杀鬼); wins are always taken
(declining a soft win when the estimate of the hard hand was higher lost clearly on the tuning walls).  The
greedy ``"shagui_when_stable"`` knob (which does decline soft wins) is available here too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agents.danger import ready_probability
from agents.features import Seen, read
from agents.greedy import HONGZHONG_POLICIES, GreedyAgent
from agents.handeval import pairs_shanten, shanten_dead, suit_mask, triplets_shanten, useful_tiles
from agents.valuation import (
    VariantValues,
    completion_probability,
    discard_win_income,
    own_melds,
    wait_payments,
    win_value,
    wuhan_wait_payments,
)
from envs.core.actions import HU_ID, PASS_ID
from envs.core.melds import Meld, MeldKind
from envs.core.rule_config import RuleConfig
from envs.core.tiles import NUM_KINDS, NUM_SUITED, RED
from envs.engine.observation import SLICES
from envs.engine.view import Phase

_CHI_ROW = SLICES["chis"].start  # own 吃 tiles (slot 0), 34 counts
_WILD_ROW = SLICES["wild_kinds"].start
_INDICATOR_ROW = SLICES["indicator"].start
_HONORS = tuple(k for k in range(NUM_SUITED, NUM_KINDS) if k != RED)  # Wuhan honors that can form triplets
_TERMINALS = sum(1 << k for k in range(NUM_SUITED) if k % 9 in (0, 8))  # the 1s and 9s (幺九牌)

__all__ = ["ValueAgent"]


@dataclass(slots=True)
class _Option:
    kind: int
    shanten: int
    useful: int
    value: float
    plan: str


class ValueAgent(GreedyAgent):
    """Expected-value discards over plans (see the module docstring)."""

    name = "value"
    policies = (*HONGZHONG_POLICIES, "shagui_by_value")

    def __init__(
        self,
        *,
        hongzhong_policy: str = "shagui_by_value",
        shagui_min_live: int = 4,
        slack: int = 0,
        late_wall: int = 16,
        max_off_suit: int = 4,
        pong_keep: float = 0.9,
        kong_slack: int = 1,
        exhaustion_weight: float | None = None,
        exit_weight: float = 1.0,
        duanyao_plan: bool = False,
        pass_win: float = 0.0,
        variant_actions: bool = True,
        baohu_min_live: int = 2,
    ) -> None:
        super().__init__(
            hongzhong_policy=hongzhong_policy,
            shagui_min_live=shagui_min_live,
            variant_actions=variant_actions,
            baohu_min_live=baohu_min_live,
        )
        for name, v in (
            ("slack", slack),
            ("late_wall", late_wall),
            ("max_off_suit", max_off_suit),
            ("kong_slack", kong_slack),
        ):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"{name} must be a non-negative int, got {v!r}")
        if not 0.0 <= float(pong_keep) <= 10.0:
            raise ValueError(f"pong_keep must be a number in [0, 10], got {pong_keep!r}")
        self.slack = slack
        self.late_wall = late_wall
        self.max_off_suit = max_off_suit
        self.pong_keep = float(pong_keep)
        self.kong_slack = kong_slack
        if exhaustion_weight is not None and not 0.0 <= float(exhaustion_weight) <= 10.0:
            raise ValueError(f"exhaustion_weight must be in [0, 10] or None, got {exhaustion_weight!r}")
        self.exhaustion_weight = exhaustion_weight
        if not 0.0 <= float(exit_weight) <= 10.0:
            raise ValueError(f"exit_weight must be in [0, 10], got {exit_weight!r}")
        self.exit_weight = float(exit_weight)
        if not isinstance(duanyao_plan, bool):
            raise ValueError(f"duanyao_plan must be true or false, got {duanyao_plan!r}")
        self.duanyao_plan = duanyao_plan
        if not 0.0 <= float(pass_win) <= 10.0:
            raise ValueError(f"pass_win must be in [0, 10], got {pass_win!r}")
        self.pass_win = float(pass_win)
        self._simples_bonus = 0  # doublings of 断幺九 when the plan is on and the fan table pays it
        self._ready_value = 0.0
        self._values: VariantValues | None = None
        self._pairs_plan = True
        self._wuhan = False
        self._triplet_kinds: Sequence[int] = range(NUM_SUITED)  # 对对胡 kinds (Wuhan adds its honors)
        self._chi_lows: tuple[int, ...] = ()  # Wuhan: lowest kind of each own 吃 run (from the observation)
        self._laizi: int | None = None  # Wuhan: the 赖子 kind and its indicator (from the observation)
        self._indicator: int | None = None

    def act(self, observation: np.ndarray, legal_mask: np.ndarray) -> int:
        if self._wuhan:
            self._read_chis(observation)
        if self.pass_win and legal_mask[HU_ID] and legal_mask[PASS_ID] and self.cfg is not None:
            seen = read(observation, in_play=self._in_play)
            if seen.phase in (Phase.CLAIM, Phase.ROB) and self._waiting_is_worth_more(seen):
                return PASS_ID
        return super().act(observation, legal_mask)

    def _waiting_is_worth_more(self, seen: Seen) -> bool:
        """Whether to decline the discard win (点炮) on ``seen.claim_tile``: the ready hand's estimate
        (:meth:`hand_value`: the chance to win later, often by self-draw, which every active opponent pays with its
        bonus) is above ``pass_win`` × what the win pays now plus its exit value."""
        values = self._values
        assert values is not None and seen.claim_tile is not None
        t = seen.claim_tile
        counts = list(seen.counts)
        pays = self._wait_pays(seen, counts, seen.wilds, list(seen.pongs), list(seen.kongs), (t,))
        if pays[t] <= 0:
            return False
        payers = sum(1 for o in seen.opponents if o.active)
        now = discard_win_income(values, pays[t], payers) + self._exit_value(payers)
        wait, _, _ = self.hand_value(seen, counts, seen.wilds, seen.melded, seen.n_melds)
        return wait > self.pass_win * now

    def _read_chis(self, observation: np.ndarray) -> None:
        """The own 吃 runs (lowest kinds) from the ``chis`` plane: the lowest held kind always starts a run."""
        row = [round(float(x)) for x in observation[_CHI_ROW]]
        lows = []
        for k in range(NUM_SUITED):
            while row[k] > 0 and k % 9 <= 6:
                lows.append(k)
                for j in range(3):
                    row[k + j] -= 1
        self._chi_lows = tuple(lows)
        wild = [k for k in range(NUM_KINDS) if observation[_WILD_ROW, k] > 0]
        ind = [k for k in range(NUM_KINDS) if observation[_INDICATOR_ROW, k] > 0]
        self._laizi = wild[0] if wild else None
        self._indicator = ind[0] if ind else None

    def _configure(self, cfg: RuleConfig) -> None:
        super()._configure(cfg)
        self._values = VariantValues.of(cfg)
        self._pairs_plan = cfg.fan_table != "wuhan"  # RULES §4.8: seven pairs is not a winning shape in Wuhan
        self._wuhan = cfg.fan_table == "wuhan"
        self._triplet_kinds = (*range(NUM_SUITED), *_HONORS) if self._wuhan else range(NUM_SUITED)
        self._chi_lows = ()
        weight = self.exhaustion_weight
        if weight is None:  # 血流 hands always run to exhaustion; 血战 hands often end with the winners first
            weight = 0.0 if self._wuhan else 1.0 if cfg.continuation == "xueliu" else 0.3  # Wuhan: no 查叫
        self._ready_value = weight * self._values.payment(self._values.doublings["base"] + 1)
        self._simples_bonus = self._values.simples_bonus() if self.duanyao_plan else 0

    def _kong_slack(self, seen: Seen) -> int:
        # a kong pays at once (刮风下雨) and adds a root: worth one step of shanten while the wall is long
        return self.kong_slack if seen.wall >= 2 * self.late_wall else 0

    # ---- discards ------------------------------------------------------------------------------------------------
    def _wild_discard_kinds(self, seen: Seen, legal: list[int]) -> list[int]:
        if self.hongzhong_policy == "shagui_by_value":
            return []  # the last 红中 is weighed as an ordinary candidate in _choose_discard
        return super()._wild_discard_kinds(seen, legal)

    def _decline_soft_win(self, seen: Seen, legal: list[int]) -> int | None:
        # "shagui_by_value" takes every win: declining soft wins by this estimate lost clearly (measured on the
        # tuning walls, 红中: -0.77 points per hand against +1.27 when taking them)
        if self.hongzhong_policy == "shagui_by_value":
            return None
        return super()._decline_soft_win(seen, legal)

    def _choose_discard(self, seen: Seen, legal: list[int]) -> int:
        wild_now = self._wild_discard_kinds(seen, legal)
        if wild_now:
            return wild_now[0]
        cands = self._discard_candidates(seen, legal)
        if self.hongzhong_policy == "shagui_by_value" and seen.wilds == 1:
            cands += [k for k in legal if k in seen.wild_kinds and k not in cands]
        best = self._best_option(seen, cands)
        return best.kind

    def _best_option(self, seen: Seen, cands: list[int]) -> _Option:
        options = self.evaluate_discards(seen, cands)
        return max(options, key=lambda o: (o.value, -o.shanten, o.useful, self._taste(seen, o.kind)))

    def _taste(self, seen: Seen, k: int) -> tuple:
        # higher = better to discard (greedy tie order): terminals first, then more visible kinds
        return (2 if k % 9 in (0, 8) else 1 if k % 9 in (1, 7) else 0, seen.visible[k], -k)

    def evaluate_discards(self, seen: Seen, cands: list[int], *, every: bool = False) -> list[_Option]:
        """One :class:`_Option` per candidate discard; beyond the speed slack the value is -1 unless ``every``."""
        counts = list(seen.counts)
        shanten_of = {}
        for k in cands:
            if k in seen.wild_kinds:
                shanten_of[k] = self._shanten(seen, counts, wilds=seen.wilds - 1)
            else:
                counts[k] -= 1
                shanten_of[k] = self._shanten(seen, counts)
                counts[k] += 1
        if self._jiang:  # Wuhan: ready by shape only (no wait gives a 2-5-8 pair) is one step from a small win
            for k in cands:
                if shanten_of[k] == 0 and not self._live_useful(seen, counts, k):
                    shanten_of[k] = 1
        s_min = min(shanten_of.values())
        slack = self.slack if seen.wall >= self.late_wall else 0
        out = []
        for k in cands:
            s = shanten_of[k]
            if s > s_min + slack and not every:
                out.append(_Option(k, s, 0, -1.0, "slow"))
                continue
            c = list(counts)
            wilds = seen.wilds
            if k in seen.wild_kinds:
                wilds -= 1
            else:
                c[k] -= 1
            value, useful, plan = self.hand_value(seen, c, wilds, seen.melded, seen.n_melds)
            out.append(_Option(k, s, useful, value, plan))
        return out

    # ---- the estimate of a 3k+1 hand ---------------------------------------------------------------------------
    def hand_value(
        self, seen: Seen, counts: list[int], wilds: int, melded: bytes, n_melds: int
    ) -> tuple[float, int, str]:
        """``(expected income, live useful tiles of the standard plan, best plan)`` of a 3k+1 concealed hand."""
        values = self._values
        assert values is not None
        dead = self._dead(seen)
        live = seen.live
        active = sum(1 for o in seen.opponents if o.active) + 1
        payers = active - 1
        draws = seen.wall / max(active, 1)
        unseen = max(1, seen.unseen)
        wild_live = self._wild_live(seen)
        hazard = self._end_hazard(seen, payers)
        exit_value = self._exit_value(payers)
        pongs = list(seen.pongs)
        kongs = list(seen.kongs)
        extra = [k for k in range(NUM_KINDS) if melded and melded[k] and k not in pongs and k not in kongs]
        for k in extra:  # a meld just made by a hypothetical pong
            pongs.append(k)
        meld_kinds = pongs + kongs
        chis = self._chi_lows if self._wuhan else ()
        roots = 0 if self._wuhan else sum(1 for k in range(NUM_SUITED) if counts[k] + (melded[k] if melded else 0) == 4)
        suits_held = {min(k // 9, 3) for k in range(NUM_KINDS) if counts[k]} | {
            min(k // 9, 3) for k in (*meld_kinds, *chis)
        }
        one_suit = len(suits_held) <= 1
        has_wild = wilds > 0

        def worth(shanten: int, useful_live: int, doublings: int, plan: str, claims_every_step: bool = False) -> float:
            """A plan's expected income: the chance to complete it from ``shanten`` with ``useful_live`` live useful
            tiles, times what its win of ``doublings`` pays (and saves)."""
            p = completion_probability(
                shanten,
                useful_live,
                unseen,
                draws,
                plan=plan,
                claim_seats=payers,
                claims_every_step=claims_every_step,
                extra=wild_live,
                hazard=hazard,
            )
            return p * (win_value(values, values.payment(doublings), payers) + exit_value)

        # standard plan
        s, useful = useful_tiles(counts, wilds, dead=dead, allowed=self._suited, melded=melded)
        pays = None
        if self._wuhan and s >= 0:
            useful = useful + self._honor_useful(counts, wilds, dead, melded, s)
        if self._jiang and s == 0:  # Wuhan: only waits that the scorer accepts (a 2-5-8 pair, or a big win) count
            pays = self._wait_pays(seen, counts, wilds, pongs, kongs, useful)
            legal = tuple(t for t in useful if pays[t] > 0)
            if legal:
                useful = legal
            else:
                s = 1  # ready by shape only: the shape waits stand for the tiles that would fix the pair
        u_live = sum(live[t] for t in useful)
        best = 0.0
        plan = "standard"
        if s == 0:
            if pays is None:
                pays = self._wait_pays(seen, counts, wilds, pongs, kongs, useful)
            base_pay = values.payment(values.doublings["base"] - values.shagui * has_wild)
            # a wait the scorer does not accept on a discard (two-player 平胡) still wins by self-draw: count it as
            # a 平胡 and let only self-draws complete it
            pinghu = all(pays[t] <= base_pay for t in useful)
            total = sum(live[t] for t in useful)
            if total:
                avg = sum(live[t] * (pays[t] or base_pay) for t in useful) / total
                p = completion_probability(
                    0,
                    total,
                    unseen,
                    draws,
                    claim_seats=0 if pinghu and not values.allow_pinghu_on_discard else payers,
                    extra=wild_live,
                    hazard=hazard,
                )
                best = p * (win_value(values, avg, payers, pinghu=pinghu) + exit_value)
        elif s > 0:
            d = values.plan_doublings("base", flush=one_suit, roots=roots, wild=has_wild)
            p = completion_probability(s, u_live, unseen, draws, claim_seats=payers, extra=wild_live, hazard=hazard)
            best = p * (win_value(values, values.payment(d), payers, pinghu=d == values.doublings["base"]) + exit_value)
        else:
            best = win_value(values, values.payment(values.doublings["base"]), payers) + exit_value

        if s > 0:
            # 清一色: the dominant suit
            flush_suit = self._flush_suit(counts, [*meld_kinds, *chis], dead)
            if flush_suit is not None and not one_suit:
                fmask = suit_mask(flush_suit)
                others = ((1 << NUM_KINDS) - 1) if self._wuhan else self._suited  # Wuhan: honors never in a flush
                sf, fu = useful_tiles(
                    counts, wilds, dead=(others & ~fmask) | dead, allowed=fmask, melded=melded, candidates=fmask
                )
                if 0 <= sf <= s + 2:
                    d = values.plan_doublings("base", flush=True, roots=roots, wild=has_wild)
                    v = worth(sf, sum(live[t] for t in fu), d, "flush")
                    if v > best:
                        best, plan = v, "flush"
            # 七对
            if self._pairs_plan and n_melds == 0 and sum(counts) + wilds == 13:
                s7 = pairs_shanten(counts, wilds, dead, live)
                if 0 <= s7 <= s + 1:
                    u7 = sum(live[k] for k in range(NUM_SUITED) if counts[k] & 1 and not dead >> k & 1)
                    d = values.plan_doublings("pairs", flush=one_suit, roots=roots, wild=has_wild)
                    v = worth(s7, u7, d, "pairs")
                    if v > best:
                        best, plan = v, "pairs"
            # 对对胡 (never with a 吃 run)
            n_sets = (sum(counts) + wilds - 1) // 3
            if chis:
                st = -1
            else:
                st = triplets_shanten(counts, wilds, n_sets, dead, live, self._triplet_kinds)
            if 0 <= st <= s + 1:
                ut = sum(live[k] for k in self._triplet_kinds if 0 < counts[k] < 3 and not dead >> k & 1)
                d = values.plan_doublings("triplets", flush=one_suit, roots=roots, wild=has_wild)
                v = worth(st, ut, d, "triplets", claims_every_step=True)
                if v > best:
                    best, plan = v, "triplets"
            # 断幺九: every 1 and 9 dead, no meld of a terminal
            if self._simples_bonus and not chis and not any(k >= NUM_SUITED or k % 9 in (0, 8) for k in meld_kinds):
                tdead = dead | _TERMINALS
                allowed = self._suited & ~_TERMINALS
                ss = shanten_dead(counts, wilds, dead=tdead, allowed=allowed, melded=melded)
                if 0 <= ss <= s + 1:  # the useful tiles only for a plan within reach (a dead tile is a slow shanten)
                    ss, su = useful_tiles(counts, wilds, dead=tdead, allowed=allowed, melded=melded)
                    d = values.plan_doublings("base", flush=one_suit, roots=roots, wild=has_wild) + self._simples_bonus
                    v = worth(ss, sum(live[t] for t in su), d, "standard")
                    if v > best:
                        best, plan = v, "simples"
        # readiness at exhaustion: a ready hand avoids paying 查大叫 to every ready opponent (and collects from the
        # others); the chance to become ready is the chance to make ``s`` useful draws
        if self._ready_value > 0 and payers:
            p_ready = 1.0 if s <= 0 else completion_probability(s - 1, u_live, unseen, draws, extra=wild_live)
            best += p_ready * self._ready_value * payers
        return best, u_live, plan

    def _honor_useful(self, counts: list[int], wilds: int, dead: int, melded: bytes, s: int) -> tuple[int, ...]:
        """Wuhan: honor kinds whose draw lowers the shanten ``s`` (a held honor: pair or triplet); the generic
        :func:`agents.handeval.useful_tiles` lists suited kinds only."""
        out = []
        for t in _HONORS:
            c = counts[t]
            if not c or c + (melded[t] if melded else 0) >= 4 or dead >> t & 1:
                continue
            counts[t] += 1
            if self._shanten_of(counts, wilds, dead, melded) < s:
                out.append(t)
            counts[t] -= 1
        return tuple(out)

    def _shanten_of(self, counts: list[int], wilds: int, dead: int, melded: bytes) -> int:
        return shanten_dead(counts, wilds, dead=dead, allowed=self._suited, melded=melded)

    def _wuhan_melds(self, pongs: list[int], kongs: list[int]) -> tuple[Meld, ...]:
        """Own melds for the Wuhan scorer: pongs, kongs and the 吃 runs read from the observation."""
        return own_melds(pongs, kongs) + tuple(Meld(MeldKind.CHI, k) for k in self._chi_lows)

    def _wait_pays(
        self, seen: Seen, counts: list[int], wilds: int, pongs: list[int], kongs: list[int], waits: tuple[int, ...]
    ) -> dict[int, float]:
        """The discard-win payment of each wait of the ready 3k+1 hand (0: not a win), by the engine's scorer."""
        if self._jiang:
            return self._wuhan_pays(counts, wilds, pongs, kongs, waits)
        hand = list(counts)
        left = wilds
        for w in seen.wild_kinds:  # put the wildcards back under their physical kinds
            hand[w] = min(seen.hand[w], left)
            left -= hand[w]
        return wait_payments(self.cfg, hand, own_melds(pongs, kongs), seen.void, waits, indicator=seen.indicator)

    def _wuhan_pays(
        self, counts: list[int], wilds: int, pongs: list[int], kongs: list[int], waits: tuple[int, ...]
    ) -> dict[int, float]:
        """Per-loser payment of each wait (0: not a win) by the Wuhan scorer."""
        assert self.cfg is not None and self._values is not None
        hand = list(counts)
        if self._laizi is not None:
            hand[self._laizi] += wilds
        return wuhan_wait_payments(
            self.cfg, self._values, hand, self._wuhan_melds(pongs, kongs), waits, indicator=self._indicator
        )

    def _jiang_wait(self, counts: list[int], wilds: int, t: int, melded: bytes) -> bool:
        # Wuhan: a wait that only wins as a big win (no 2-5-8 pair needed) also counts
        if super()._jiang_wait(counts, wilds, t, melded):
            return True
        if not self._wuhan:
            return False
        pongs = [k for k in range(NUM_KINDS) if melded and melded[k] == 3]
        kongs = [k for k in range(NUM_KINDS) if melded and melded[k] == 4]
        return self._wuhan_pays(counts, wilds, pongs, kongs, (t,))[t] > 0

    def _exit_value(self, payers: int) -> float:
        """What winning saves besides its income: a 血战 winner leaves the hand and pays nothing more (and a win
        that ends a two-player hand denies the opponent's).  ``exit_weight`` × one typical payment per opponent."""
        cfg = self.cfg
        assert cfg is not None and self._values is not None
        if cfg.continuation == "xueliu" or not payers:
            return 0.0
        return self.exit_weight * payers * self._values.payment(self._values.doublings["base"] + 1)

    def _end_hazard(self, seen: Seen, payers: int) -> float:
        """Chance per turn that the hand ends for this agent before it wins: an opponent's win ends the hand when
        it is the last opponent (two players, or the last two of a 血战) or under ``continuation = "single"``."""
        cfg = self.cfg
        assert cfg is not None
        ends = cfg.continuation == "single" or (cfg.continuation == "xuezhan" and payers == 1)
        if not ends:
            return 0.0
        return min(0.5, sum(0.04 + 0.15 * ready_probability(o) for o in seen.opponents if o.active))

    def _flush_suit(self, counts: list[int], meld_kinds: list[int], dead: int) -> int | None:
        """The suit holding most tiles, if every meld is in it and at most ``max_off_suit`` tiles lie outside it."""
        if any(k >= NUM_SUITED for k in meld_kinds):  # an honor meld (武汉) can never be part of a flush
            return None
        per_suit = [0, 0, 0]
        for k in range(NUM_SUITED):
            if counts[k] and not dead >> k & 1:
                per_suit[k // 9] += counts[k]
        for k in meld_kinds:
            per_suit[k // 9] += 3
        suit = max(range(3), key=lambda s: (per_suit[s], -s))
        if any(k // 9 != suit for k in meld_kinds):
            return None
        off = sum(counts[k] for k in range(NUM_KINDS) if (k >= NUM_SUITED or k // 9 != suit) and not dead >> k & 1)
        return suit if off <= self.max_off_suit else None

    # ---- claims --------------------------------------------------------------------------------------------------
    def _pong_ok(self, seen: Seen, k: int, s_now: int) -> bool:
        if not super()._pong_ok(seen, k, s_now):
            return False
        c = list(seen.counts)
        c[k] -= 2
        return self._claim_keeps_value(seen, c, seen.wilds, self._meld_added(seen.melded, k, 3))

    def _fei_ok(self, seen: Seen, k: int, s_now: int) -> bool:
        if not super()._fei_ok(seen, k, s_now):
            return False
        c, wilds = self._fei_hand(seen, k)
        return self._claim_keeps_value(seen, c, wilds, self._meld_added(seen.melded, k, min(3, 4 - c[k])))

    def _chi_ok(self, seen: Seen, k: int, position: int, s_now: int) -> bool:
        if not super()._chi_ok(seen, k, position, s_now):
            return False
        if not seen.opened:  # 开口 is required to win in Wuhan: no value test (see _claim_keeps_value)
            return True
        counts = self._chi_counts(seen, k, position)
        return self._claim_keeps_value(seen, counts, seen.wilds, seen.melded, chi_low=k - position)

    def _claim_keeps_value(
        self, seen: Seen, counts: list[int], wilds: int, melded: bytes, *, chi_low: int | None = None
    ) -> bool:
        """A meld claim leaving the 3k+2 hand ``counts`` is taken when its best estimate (over the discards) is at
        least ``pong_keep`` times the estimate without it.  A hand that must still open (武汉 开口) skips the test:
        the estimate does not know that it cannot win closed.  ``chi_low``: the 吃 run the claim makes (武汉)."""
        assert self.cfg is not None
        if self.cfg.fan_table == "wuhan" and not seen.opened:
            return True
        now, _, _ = self.hand_value(seen, list(seen.counts), seen.wilds, seen.melded, seen.n_melds)
        before = self._chi_lows
        if chi_low is not None:
            self._chi_lows = (*before, chi_low)  # no 碰碰胡 after a chi; its suit counts for 清一色
        try:
            after = self._best_after_claim(seen, counts, wilds, melded)
        finally:
            self._chi_lows = before
        return after >= self.pong_keep * now

    def _best_after_claim(self, seen: Seen, counts: list[int], wilds: int, melded: bytes) -> float:
        c = list(counts)
        after = 0.0
        for d in range(NUM_KINDS):
            if c[d] <= 0 or d in seen.wild_kinds:
                continue
            c[d] -= 1
            v, _, _ = self.hand_value(seen, c, wilds, melded, seen.n_melds + 1)
            c[d] += 1
            after = max(after, v)
        return after

    def __repr__(self) -> str:
        return f"ValueAgent(hongzhong_policy={self.hongzhong_policy!r})"
