# %% [markdown]
# # When to keep 红中? — a duplicate experiment on the red-dragon rules
#
# In 红中麻将 (`hongzhong`, RULES.md §4.3) the four 红中 are wildcards.  Three rules pull in different directions:
#
# * a 红中 stands for any suited tile outside the void suit, so it makes a hand **faster**;
# * **杀鬼**: a win whose final hand holds no 红中 (a *hard* win) is worth **one more doubling** (×2);
# * a discarded 红中 is **dead** — nobody may pong, kong or win on it — so it is also a perfectly **safe** discard.
#
# (Four 红中 are an instant win worth 8 doublings.)  So when is it worth letting a 红中 go?  This notebook measures
# it.  Policies that differ **only** in how they treat 红中 play the same walls (duplicate evaluation), we get the
# difference in points per hand with 95 % confidence intervals, and we break the effect down by the situation at the
# moment of the decision (shanten, number of 红中 held, tiles left in the wall).  The games are driven through the
# engine directly (`envs.engine.game.Game`, the AEC environment's observation encoder and masks, the agents' `act`), so
# every decision can be instrumented.
#
# Budget: `CHUANMA_NOTEBOOK_BUDGET=small` runs a handful of walls (CI); the stored outputs are the full run.

# %%
import copy
import math
import time
from collections import defaultdict

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display
from nbsupport import BUDGET, policy_run, scaled, setup_plots, show, shown

from agents.features import read
from agents.greedy import GreedyAgent
from agents.handeval import dead_mask_for, useful_tiles
from agents.policy import PolicyAgent
from envs.core.actions import DISCARD_BASE, EXCHANGE_BASE, HU_ID, ActionType, decode, exchange
from envs.core.rule_config import load_variant
from envs.core.tiles import HONG_ZHONG, NUM_SUITED
from envs.engine.game import Game
from envs.engine.observation import ObservationEncoder, legal_mask
from envs.engine.view import Phase
from training.evaluation.evaluate import one_vs_three, t_interval, wall_seed

setup_plots()
print(f"budget: {BUDGET}")
CFG = load_variant("hongzhong")
ENC = ObservationEncoder.from_config(CFG)
RED = DISCARD_BASE + HONG_ZHONG  # the flat action "discard 红中"
SUITED = (1 << NUM_SUITED) - 1
SEED = 2024  # evaluation seed: wall w is Game(CFG, seed=wall_seed(SEED, w))
WALLS = scaled(600, 6)
print(f"{CFG.name}: {CFG.num_tiles} tiles, wall after the deal {CFG.num_tiles - 4 * 13 - 1}; {WALLS} walls")

# %% [markdown]
# ## 1. What a 红中 decision looks like
#
# A seat faces a 红中 decision on its own turn when it holds at least one 红中 and may discard it.  For each such
# moment we record what the seat can see: how many 红中 it holds, whether a win is on offer right now, the shanten
# of its hand **after** discarding one 红中 (0 = ready), the live winning tiles of that ready hand, and the tiles left
# in the wall.


# %%
def situation(obs, mask):
    """Features of a 红中 decision, read from the seat's own observation (agents.features)."""
    s = read(obs)
    dead = dead_mask_for(s.void)
    shanten, useful = useful_tiles(s.counts, s.wilds - 1, dead=dead, allowed=SUITED, melded=s.melded)
    return {
        "red": s.wilds,
        "win_now": bool(mask[HU_ID]),
        "shanten_without": shanten,
        "live_waits": sum(s.live[t] for t in useful) if shanten == 0 else 0,
        "wall_left": s.wall,
    }


def is_red_decision(view, mask):
    return view.phase == Phase.SELF and bool(mask[RED])


# %% [markdown]
# ## 2. The policies
#
# All policies are the greedy baseline (`agents.greedy.GreedyAgent`: lowest shanten, then most live effective
# tiles; always wins when it can) and differ only in the 红中 decision:
#
# | policy | 红中 rule |
# |---|---|
# | `keep_all` | never discards a 红中 voluntarily (`GreedyAgent()`, the library default) |
# | `shagui_when_stable` | one 红中 held, hand ready without it, ≥ 4 live winning tiles: discard it (杀鬼) |
# | `shagui_always` | the same with at least 1 live winning tile |
# | `trained` | whenever a 红中 may be discarded, the trained policy (masked argmax) decides; otherwise greedy |
#
# One fact shapes the experiment: **a hand that is ready without its 红中 is already complete with it** — the 红中
# fills the wait.  So "discard the 红中 when the hand is stable" always means *declining a soft self-drawn win* to
# wait for a hard one.  The counts below check this on the experiment's walls, and they explain why the library knob
# `GreedyAgent(hongzhong_policy="shagui_when_stable")`, which looks at 红中 only after taking any legal win, is
# measured here as a fifth policy (`library_knob`): if it never declines a win, it plays exactly like `keep_all`.


# %%
class Shagui(GreedyAgent):
    """Greedy, but decline a soft win and discard the 红中 when the hand without it is ready (杀鬼)."""

    def __init__(self, min_live):
        super().__init__(hongzhong_policy="keep_all")
        self.min_live = min_live

    def act(self, obs, mask):
        if mask[RED] and read(obs).wilds == 1:
            f = situation(obs, mask)
            if f["shanten_without"] == 0 and f["live_waits"] >= self.min_live:
                return RED
        return super().act(obs, mask)


class TrainedRed(GreedyAgent):
    """Greedy, except that the trained policy decides every 红中 discard (masked argmax over the legal actions)."""

    def __init__(self, policy):
        super().__init__(hongzhong_policy="keep_all")
        self.policy = policy

    def prefers_red(self, obs, mask):
        ids = np.flatnonzero(mask)
        return bool(mask[RED]) and ids[int(np.argmax(self.policy.logits(obs)[ids]))] == RED

    def act(self, obs, mask):
        return RED if self.prefers_red(obs, mask) else super().act(obs, mask)

    def __deepcopy__(self, memo):  # branches share the (read-only) network
        clone = TrainedRed(self.policy)
        clone.__dict__.update({k: copy.deepcopy(v, memo) for k, v in self.__dict__.items() if k != "policy"})
        return clone


# %% [markdown]
# The trained policy is the run of notebook 03 (MaskablePPO self-play on `hongzhong`, warm-started by cloning the
# greedy baseline).  `policy_run()` loads the run directory named by `CHUANMA_RUN_DIR`, or the notebooks' own run
# if one was already trained, or trains it now with notebook 03's configuration (`nbsupport.train_config`).

# %%
run_dir, how = policy_run()
print(f"trained policy: {shown(run_dir / 'final.zip')} ({how})")
POLICY = PolicyAgent.load(run_dir / "final.zip", variant=CFG)
print(POLICY, "step", POLICY.meta.step)

CHALLENGERS = {
    "shagui_when_stable": lambda: Shagui(min_live=4),
    "shagui_always": lambda: Shagui(min_live=1),
    "trained": lambda: TrainedRed(POLICY),
    "library_knob": lambda: GreedyAgent(hongzhong_policy="shagui_when_stable"),
}


# %% [markdown]
# ## 3. The paired duplicate runner
#
# For every wall we play one **control** hand with `keep_all` in all four seats.  Each challenger sits as a
# *shadow* in every seat and is shown the same observation as the control agent; the first time its answer differs,
# the table is copied (`Game.copy()` and the agents) and the challenger's action is played out from there with the
# challenger in that seat and `keep_all` in the others.  Because the agents are deterministic, the game with the
# challenger in seat *s* is identical to the control game up to that moment, so
#
# * a seat where the challenger never diverges scores exactly what `keep_all` scored (difference 0, no replay needed);
# * the difference of a diverging seat is caused by that decision and its consequences, and the situation at the
#   first divergence says *when* it happened.
#
# Averaged over the four seats this is the one-vs-three duplicate evaluation of `training.evaluation.evaluate` (challenger in one
# seat, three `keep_all` copies; the control hand sums to zero): the cell after next checks that both give the same
# numbers on the first walls.
#
# The same control hands also give a **counterfactual** at every 红中 decision moment: copy the table, discard one
# 红中 *now* instead of the control action, and let everyone continue with `keep_all`.  The difference of that
# seat's final score is the value of letting that 红中 go, in that situation, on that wall.


# %%
class Table:
    """A hand in progress: the engine, one agent per seat, and the AEC-style 换三张 picks."""

    def __init__(self, seed, agents):
        self.game = Game(CFG, seed=seed, record_events=False)
        self.agents = agents
        for seat, agent in enumerate(agents):
            agent.reset(seat, CFG)
        self.picks = [[] for _ in agents]

    def inputs(self, seat):
        view = self.game.view(seat)
        return view, ENC.encode(view, exchange_picks=self.picks[seat]), legal_mask(view, self.picks[seat])

    def apply(self, seat, view, a):
        if view.phase == Phase.EXCHANGE and decode(a).type == ActionType.EXCHANGE:
            self.picks[seat].append(a - EXCHANGE_BASE)
            if len(self.picks[seat]) < 3:
                return
            action, self.picks[seat] = exchange(self.picks[seat]), []
        else:
            action = decode(a)
        self.game.step(seat, action)

    def branch(self, seat=None, agent=None):
        t = copy.copy(self)
        t.game = self.game.copy()
        t.agents = copy.deepcopy(self.agents)
        t.picks = [list(p) for p in self.picks]
        if seat is not None:
            t.agents[seat] = copy.deepcopy(agent)
        return t

    def finish(self):
        while not self.game.is_over:
            seat = self.game.pending[0]
            view, obs, mask = self.inputs(seat)
            self.apply(seat, view, self.agents[seat].act(obs, mask))
        return self.game


def play_wall(w):
    """Control hand of wall ``w`` with shadows and counterfactuals; returns (control scores, records, moments)."""
    table = Table(wall_seed(SEED, w), [GreedyAgent() for _ in range(4)])
    shadows = {name: [make() for _ in range(4)] for name, make in CHALLENGERS.items()}
    for agents in shadows.values():
        for seat, agent in enumerate(agents):
            agent.reset(seat, CFG)
    diverged = {name: set() for name in CHALLENGERS}
    branches, moments = [], []
    while not table.game.is_over:
        seat = table.game.pending[0]
        view, obs, mask = table.inputs(seat)
        a = table.agents[seat].act(obs, mask)
        red = is_red_decision(view, mask)
        f = situation(obs, mask) if red else None
        for name, agents in shadows.items():
            if seat in diverged[name]:
                continue
            b = agents[seat].act(obs, mask)
            if b != a:
                if not red:
                    raise AssertionError(f"{name} differs from keep_all outside a 红中 decision: {view.phase}")
                diverged[name].add(seat)
                branches.append(("policy", name, seat, table.branch(seat, agents[seat]), view, b, f))
        if red:
            moments.append(
                {"wall": w, "seat": seat, **f, "trained_red": shadows["trained"][seat].prefers_red(obs, mask)}
            )
            if a != RED:
                branches.append(("counterfactual", "discard_red_now", seat, table.branch(), view, RED, f))
        table.apply(seat, view, a)
        if red and f["win_now"]:  # the win keep_all took (or declined): what letting the 红中 go gives up
            mine = [x for x in table.game.wins if x.seat == seat]
            f["declined_doublings"] = mine[-1].doublings if a == HU_ID and mine else None
    control = list(table.game.scores)
    records = []
    for kind, name, seat, t, view, b, f in branches:
        t.apply(seat, view, b)
        game = t.finish()
        records.append(
            {"wall": w, "kind": kind, "name": name, "seat": seat, **f, "diff": game.scores[seat] - control[seat]}
        )
    return control, records, moments


start = time.perf_counter()
CONTROL, RECORDS, MOMENTS = [], [], []
for w in range(WALLS):
    control, records, moments = play_wall(w)
    CONTROL.append(control)
    RECORDS += records
    MOMENTS += moments
elapsed = time.perf_counter() - start
print(
    f"{WALLS} walls in {elapsed:.0f} s: {len(MOMENTS)} 红中 decision moments, "
    f"{sum(r['kind'] == 'policy' for r in RECORDS)} policy divergences, "
    f"{sum(r['kind'] == 'counterfactual' for r in RECORDS)} counterfactual replays"
)

# %% [markdown]
# **Check 1** — a hand that is ready without its 红中 always has a win on offer (the 红中 completes it):

# %%
ready_without = [m for m in MOMENTS if m["shanten_without"] == 0]
print(
    f"moments ready without one 红中: {len(ready_without)}; a win was on offer in "
    f"{sum(m['win_now'] for m in ready_without)} of them"
)
print(
    f"moments with a win on offer: {sum(m['win_now'] for m in MOMENTS)}; moments without: "
    f"{sum(not m['win_now'] for m in MOMENTS)}"
)
assert all(m["win_now"] for m in ready_without)

# %% [markdown]
# **Check 2** — the paired runner reproduces `training.evaluation.evaluate.one_vs_three` (which replays every rotation of every
# wall from scratch) exactly, on the first walls:

# %%
CHECK_WALLS = scaled(10, 2)


def paired_points(name, walls):
    """Challenger points per hand, per wall (mean over the four seats) from the paired runner."""
    per = np.zeros(walls)
    for r in RECORDS:
        if r["kind"] == "policy" and r["name"] == name and r["wall"] < walls:
            per[r["wall"]] += r["diff"] / 4
    return per


res = one_vs_three(CFG, "greedy:hongzhong_policy=shagui_when_stable", "greedy", walls=CHECK_WALLS, seed=SEED)
mine = paired_points("library_knob", CHECK_WALLS)
print(f"one_vs_three wall means {np.round(res.wall_means, 3).tolist()}")
print(f"paired runner           {np.round(mine, 3).tolist()}")
assert np.allclose(res.wall_means, mine)

# %% [markdown]
# The library's evaluator can only name registered agents, so the check uses the library knob; the notebook's own
# policies go through the same runner code.  For them, a direct replay of every rotation of the first walls (the
# challenger in one seat, `keep_all` in the others, from the deal) must give the same differences:


# %%
def replay_rotation(w, make, seat):
    agents = [GreedyAgent() for _ in range(4)]
    agents[seat] = make()
    return Table(wall_seed(SEED, w), agents).finish().scores[seat] - CONTROL[w][seat]


for name in ("shagui_when_stable", "shagui_always", "trained"):
    direct = np.array([sum(replay_rotation(w, CHALLENGERS[name], s) for s in range(4)) / 4 for w in range(CHECK_WALLS)])
    assert np.allclose(direct, paired_points(name, CHECK_WALLS)), name
print("direct replays agree with the paired runner on", CHECK_WALLS, "walls")

# %% [markdown]
# ## 4. Results: points per hand against a `keep_all` field
#
# Points per hand in base units (a 平胡 on a discard is 1), the challenger's mean over every wall and seat; the
# 95 % t-interval treats walls as the independent samples (each wall's mean over its four seats).


# %%
def interval(per_wall):
    mean, lo, hi = t_interval(per_wall) if len(per_wall) else (math.nan, math.nan, math.nan)
    return mean, lo, hi


def verdict(mean, lo, hi, subject, baseline, unit):
    """The one statement the interval supports: a gain, a loss, or no distinction."""
    ci = f"95 % CI [{lo:+.2f}, {hi:+.2f}]"
    if not math.isfinite(lo) or not math.isfinite(hi):
        return f"too few samples to say anything about {subject}"
    if lo > 0:
        return f"{subject} **gains** {mean:.2f} points {unit} over {baseline} ({ci})"
    if hi < 0:
        return f"{subject} **loses** {-mean:.2f} points {unit} against {baseline} ({ci})"
    return f"the data does **not distinguish** {subject} from {baseline} ({ci} contains 0)"


def fmt(x, spec="+.2f"):
    return "–" if not math.isfinite(x) else format(x, spec)


SUMMARY = {}
rows = []
for name in CHALLENGERS:
    per_wall = paired_points(name, WALLS)
    mean, lo, hi = interval(per_wall)
    recs = [r for r in RECORDS if r["kind"] == "policy" and r["name"] == name]
    SUMMARY[name] = (mean, lo, hi, len(recs))
    per_dec = float(np.mean([r["diff"] for r in recs])) if recs else math.nan
    rows.append(
        f"| `{name}` | {len(recs)} | {len(recs) / (4 * WALLS):.3f} | {fmt(per_dec)} | {fmt(mean, '+.3f')} | "
        f"[{fmt(lo, '+.3f')}, {fmt(hi, '+.3f')}] |"
    )
display(
    Markdown(
        f"{WALLS} walls × 4 seats against three `keep_all` copies.\n\n"
        "| challenger | hands that diverge | share of hands | mean difference of a diverging hand | points / hand "
        "| 95 % CI |\n"
        "|---|---:|---:|---:|---:|---|\n" + "\n".join(rows)
    )
)

fig, ax = plt.subplots(figsize=(6.5, 3.2))
names = list(SUMMARY)
means = [SUMMARY[n][0] for n in names]
err = [
    [SUMMARY[n][0] - SUMMARY[n][1] if math.isfinite(SUMMARY[n][1]) else 0 for n in names],
    [SUMMARY[n][2] - SUMMARY[n][0] if math.isfinite(SUMMARY[n][2]) else 0 for n in names],
]
colors = ["tab:green" if SUMMARY[n][1] > 0 else "tab:red" if SUMMARY[n][2] < 0 else "tab:gray" for n in names]
ax.barh(range(len(names)), means, xerr=err, capsize=4, color=colors)
ax.axvline(0, color="black", linewidth=0.8)
ax.set_yticks(range(len(names)))
ax.set_yticklabels(names)
ax.invert_yaxis()
ax.set_xlabel("points per hand vs keep_all field (95% CI)")
ax.set_title(f"hongzhong, {WALLS} walls, duplicate")
show(fig)

# %% [markdown]
# ## 5. When does letting a 红中 go pay?  The counterfactuals by situation
#
# Every 红中 decision moment of the control hands was replayed with "discard one 红中 now".  Below, the mean change
# of that seat's score, with 95 % intervals (walls as clusters: each wall's moments are averaged first), by the
# situation at the moment.  Moments with a win on offer are the 杀鬼 decisions (declining the soft win); the others
# are early releases of a 红中 that is not yet needed.

# %%
CF = [r for r in RECORDS if r["kind"] == "counterfactual"]


def clustered(records):
    by_wall = defaultdict(list)
    for r in records:
        by_wall[r["wall"]].append(r["diff"])
    return (*interval([float(np.mean(v)) for v in by_wall.values()]), len(records))


def wall_bucket(n):
    return "40-59" if n >= 40 else "20-39" if n >= 20 else "0-19"


def stage(r):
    """Win on offer, or the shanten of the hand after discarding the 红中 (1, 2, 3+)."""
    if r["win_now"]:
        return "win on offer"
    return f"shanten {min(r['shanten_without'], 3)}{'+' if r['shanten_without'] >= 3 else ''} without it"


STAGES = ["win on offer", "shanten 1 without it", "shanten 2 without it", "shanten 3+ without it"]
BREAKDOWNS = {
    "stage": (stage, STAGES),
    "红中 held": (lambda r: str(r["red"]), ["1", "2", "3"]),
    "wall left": (lambda r: wall_bucket(r["wall_left"]), ["40-59", "20-39", "0-19"]),
}
TABLES = {}
for title, (key, order) in BREAKDOWNS.items():
    groups = defaultdict(list)
    for r in CF:
        groups[key(r)].append(r)
    TABLES[title] = {k: clustered(groups[k]) for k in order if groups.get(k)}

lines = ["| breakdown | situation | moments | mean score change | 95 % CI |", "|---|---|---:|---:|---|"]
for title, table in TABLES.items():
    for k, (mean, lo, hi, n) in table.items():
        lines.append(f"| {title} | {k} | {n} | {fmt(mean)} | [{fmt(lo)}, {fmt(hi)}] |")
display(Markdown("\n".join(lines)))

LABELS = {"红中 held": "hongzhong held", "stage": "stage (shanten after discarding it)"}
fig, axes = plt.subplots(1, 3, figsize=(11, 3.3), sharey=True)
for ax, (title, table) in zip(axes, TABLES.items()):
    ks = list(table)
    m = [table[k][0] for k in ks]
    lo = [table[k][0] - table[k][1] if math.isfinite(table[k][1]) else 0 for k in ks]
    hi = [table[k][2] - table[k][0] if math.isfinite(table[k][2]) else 0 for k in ks]
    ax.errorbar(range(len(ks)), m, yerr=[lo, hi], fmt="o", capsize=4)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(ks)))
    ax.set_xticklabels([k.replace(" without it", "").replace(" on offer", "\non offer") for k in ks], fontsize=8)
    ax.set_title(LABELS.get(title, title))
axes[0].set_ylabel("score change of discarding a hongzhong now")
fig.suptitle("counterfactual: discard one hongzhong now, then keep_all (95% CI, clustered by wall)", fontsize=10)
show(fig)

# %% [markdown]
# The 杀鬼 decisions in more detail (a win on offer, one 红中 held): declining the soft win, by the live winning
# tiles of the hard hand, by the tiles left in the wall, and by the doublings of the soft win given up (early soft
# wins include 天胡 / 地胡, a fixed 8 doublings in 红中 — 256 from each payer).

# %%
SHAGUI = [r for r in CF if r["win_now"] and r["red"] == 1]  # with one 红中: discarding it makes the hand hard
rows = []
for label, pick in [
    ("live waits 1-3", lambda r: r["live_waits"] < 4),
    ("live waits 4-7", lambda r: 4 <= r["live_waits"] < 8),
    ("live waits 8+", lambda r: r["live_waits"] >= 8),
    ("wall 40-59", lambda r: r["wall_left"] >= 40),
    ("wall 20-39", lambda r: 20 <= r["wall_left"] < 40),
    ("wall 0-19", lambda r: r["wall_left"] < 20),
    (
        "soft win given up: 0-1 doublings",
        lambda r: r.get("declined_doublings") is not None and r["declined_doublings"] <= 1,
    ),
    ("soft win given up: 2-3 doublings", lambda r: r.get("declined_doublings") in (2, 3)),
    ("soft win given up: 4+ doublings", lambda r: (r.get("declined_doublings") or 0) >= 4),
]:
    sel = [r for r in SHAGUI if pick(r)]
    if sel:
        mean, lo, hi, n = clustered(sel)
        rows.append(f"| {label} | {n} | {fmt(mean)} | [{fmt(lo)}, {fmt(hi)}] |")
display(Markdown("| 杀鬼 moment | moments | mean score change | 95 % CI |\n|---|---:|---:|---|\n" + "\n".join(rows)))

# %% [markdown]
# ## 6. What does the trained policy do with 红中?
#
# At every 红中 decision moment of the control hands we asked the trained policy whether its preferred action is
# "discard 红中" (masked argmax).  Its rate by situation:

# %%
rows = []
for title, (key, order) in BREAKDOWNS.items():
    groups = defaultdict(list)
    for m in MOMENTS:
        groups[key(m)].append(m["trained_red"])
    for k in order:
        if groups.get(k):
            rows.append(f"| {title} | {k} | {len(groups[k])} | {np.mean(groups[k]):.3f} |")
total = np.mean([m["trained_red"] for m in MOMENTS]) if MOMENTS else math.nan
display(
    Markdown(
        f"Overall the trained policy would discard a 红中 at {total:.1%} of {len(MOMENTS)} moments.\n\n"
        "| breakdown | situation | moments | share preferring to discard 红中 |\n|---|---|---:|---:|\n"
        + "\n".join(rows)
    )
)

# %% [markdown]
# ## 7. Conclusion
#
# Generated from the numbers above (a different budget or seed gives different numbers, and the text follows them).

# %%
lines = ["**Policies** (points per hand of the challenger in a `keep_all` field):", ""]
for name, (mean, lo, hi, n) in SUMMARY.items():
    if n == 0:
        lines.append(
            f"* `{name}` never decided differently from `keep_all` on these {WALLS} walls: it plays exactly "
            "like `keep_all` here (nothing to measure)."
        )
    else:
        lines.append(
            f"* `{name}` (different from `keep_all` in {n} of {4 * WALLS} hands): "
            + verdict(mean, lo, hi, "it", "`keep_all`", "per hand")
            + "."
        )
lines += ["", "**Letting a 红中 go now** instead of the greedy play (score change of that hand):", ""]
gains, losses, unclear = [], [], []
for title, table in TABLES.items():
    for k, (mean, lo, hi, n) in table.items():
        lines.append(
            f"* {title} = {k} ({n} moments): "
            + verdict(mean, lo, hi, "discarding it", "keeping it", "per decision")
            + "."
        )
        (gains if lo > 0 else losses if hi < 0 else unclear).append(f"{title} = {k}")
lines += [
    "",
    "In **no** situation measured here did letting a 红中 go pay off with confidence"
    if not gains
    else f"Letting a 红中 go paid off with confidence in: {', '.join(gains)}",
]
lines[-1] += f"; it cost points with confidence in: {', '.join(losses)}" if losses else ""
lines[-1] += f"; the data does not distinguish the two choices in: {', '.join(unclear)}." if unclear else "."
display(Markdown("\n".join(lines)))

# %% [markdown]
# **Scope.**  These numbers describe one family of play: greedy discards (fastest hand, always take a win) in a field
# of the same greedy players, on `hongzhong` with its default flags.  A player that values hands differently (the
# `value` baseline, a stronger learned policy) or a table that defends differently can change the trade-off; the
# runner above takes any agent with `act(observation, legal_mask)`, so the same measurement applies to them.
