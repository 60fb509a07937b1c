# %% [markdown]
# # chuanma quick start — 川麻 in ten cells
#
# This notebook tours the pieces of **chuanma**, a reinforcement-learning environment for the Sichuan family of
# mahjong rules:
#
# 1. the **variants** (rule presets) the engine plays;
# 2. one **hand** played in the PettingZoo AEC environment `sichuan_mahjong_v0` with `render_mode="ansi"`, agents
#    choosing the actions;
# 3. the **observation** a seat receives — a `(planes, 34)` tensor drawn as a picture — and the **action mask**;
# 4. **scoring** hands with `envs.scoring.scorer.score_hand`, including worked examples of RULES.md §7;
# 5. **replaying** a logged hand from its event log.
#
# It runs top to bottom in CI: `CHUANMA_NOTEBOOK_BUDGET=small` scales the loops down (the stored outputs are a
# full-budget run; the source of this notebook is `notebooks/01_quickstart.py`, built by `notebooks/build.py`).

# %%
import json
import time
from collections import Counter

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display
from nbsupport import BUDGET, scaled, setup_plots, show

from agents.greedy import GreedyAgent
from agents.random_agent import RandomAgent
from envs import sichuan_mahjong_v0
from envs.core.actions import action_name
from envs.core.rule_config import ENGINE_PRESETS, PRESETS, load_variant
from envs.core.tiles import NUM_KINDS, format_counts, tile_code
from envs.engine.game import Game, UnsupportedRule
from envs.engine.observation import (
    NUM_PLANES,
    OBS_VERSION,
    PLANES,
    SLICES,
    decode,
    hand_counts,
    phase_of,
    wall_remaining,
)
from envs.engine.render import render_log
from envs.engine.replay import replay
from envs.scoring.patterns import PATTERN_NAMES_ZH
from envs.scoring.scorer import score_hand

setup_plots()
print(f"budget: {BUDGET}")

# %% [markdown]
# ## 1. Variants
#
# Every rule of RULES.md §9 is a field of the frozen dataclass `envs.core.rule_config.RuleConfig`; a preset is a YAML file in
# `configs/variants/`.  `PRESETS` lists all eight rule sets (all of them **score**), `ENGINE_PRESETS` the ones the
# game engine **plays** today.  The others are refused with `UnsupportedRule`, which names the missing rules.

# %%
rows = []
for name in PRESETS:
    cfg = load_variant(name)
    try:
        game = Game(cfg, seed=0)
        plays = f"yes — first decision: {game.phase.value}, seats {list(game.pending)}"
    except UnsupportedRule as exc:
        plays = f"no ({str(exc)[:60]}…)"
    rows.append(
        f"| `{name}` | {cfg.num_players} | {cfg.num_tiles} | {cfg.wild} | {cfg.continuation} | "
        f"{cfg.cap_doublings} | {cfg.zimo_bonus} | {cfg.exchange_mode} | {plays} |"
    )
display(
    Markdown(
        "| preset | players | tiles | wild | continuation | cap (doublings) | self-draw bonus | exchange "
        "| engine plays |\n"
        "|---|---:|---:|---|---|---:|---|---|---|\n" + "\n".join(rows)
    )
)
assert set(ENGINE_PRESETS) <= set(PRESETS)

# %% [markdown]
# Each engine preset is also an AEC environment.  Every decision is one AEC turn, with one `Discrete(183)` action
# space (the flat layout of `envs.core.actions`) and a dict observation holding the tensor and the legal-action mask.

# %%
for name in ENGINE_PRESETS:
    env = sichuan_mahjong_v0.env(variant=name)
    env.reset(seed=1)
    agent = env.agent_selection
    space = env.observation_space(agent)
    print(
        f"{name:10s} agents={env.agents} first to act={agent} "
        f"observation={space['observation'].shape} actions={env.action_space(agent).n}"
    )
    env.close()

# %% [markdown]
# ## 2. Play and render one hand
#
# Four agents behind the common `act(observation, legal_mask) -> action id` interface: the **greedy** baseline
# (lowest shanten, most live effective tiles) in seats 0 and 2, the seeded **random** agent in seats 1 and 3.
# The variant is 红中麻将 (`hongzhong`, the default): four 红中 wildcards, 杀鬼 (+1 doubling for a win without 红中),
# an instant win with four 红中.  `env.render()` returns the table as text from the point of view of the seat to act;
# nothing hidden from that seat is shown.

# %%
VARIANT = "hongzhong"
cfg = load_variant(VARIANT)
env = sichuan_mahjong_v0.env(variant=VARIANT, render_mode="ansi")
env.reset(seed=7)
players = {a: (GreedyAgent() if i % 2 == 0 else RandomAgent(seed=i)) for i, a in enumerate(env.agents)}
for i, a in enumerate(env.agents):
    players[a].reset(i, cfg)

snapshots = {}
decisions = 0
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    if terminated or truncated:
        env.step(None)
        continue
    action = players[agent].act(obs["observation"], obs["action_mask"])
    if decisions == 30:
        snapshots["mid-hand"] = env.render()
    decisions += 1
    env.step(action)
game = env.unwrapped.game
print(f"{decisions} decisions; hand over: {game.is_over}; scores {list(game.scores)}")
print(snapshots["mid-hand"])

# %% [markdown]
# The end of the hand, and the log: `envs.engine.render.render_log` writes one line per engine event (here the first and
# the last lines of the full, omniscient log; `game.events_for(seat)` gives one seat's view of it).

# %%
print(env.render())
lines = render_log(game.events).splitlines()
print("\n".join([*lines[:12], "   ...", *lines[-12:]]))
result = game.result
print("wins:", [(w.seat, tile_code(w.tile), w.how, w.doublings, w.payment) for w in result.wins])
print("exhausted (荒庄):", result.exhausted, "| transfers:", len(result.transfers), "| scores sum to", sum(game.scores))
assert sum(game.scores) == 0  # every hand is zero-sum

# %% [markdown]
# ### Many hands per variant
#
# The same loop without rendering, for every engine variant, greedy agents in every seat: how often the hand ends
# exhausted (荒庄), how many wins per hand and how they were won.  (Random play statistics are
# `chuanma simulate`; these are a baseline's.)

# %%
HANDS = scaled(40, 4)


def play(variant, seed, agents):
    env = sichuan_mahjong_v0.env(variant=variant)
    env.reset(seed=seed)
    cfg = load_variant(variant)
    for i, agent in enumerate(agents):
        agent.reset(i, cfg)
    seat_of = {a: i for i, a in enumerate(env.agents)}
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        done = terminated or truncated
        env.step(None if done else agents[seat_of[agent]].act(obs["observation"], obs["action_mask"]))
    return env.unwrapped.game


rows = []
for name in ENGINE_PRESETS:
    start = time.perf_counter()
    n = load_variant(name).num_players
    games = [play(name, seed, [GreedyAgent() for _ in range(n)]) for seed in range(HANDS)]
    hows = Counter(w.how for g in games for w in g.result.wins)
    wins = sum(len(g.result.wins) for g in games)
    dbl = [w.doublings for g in games for w in g.result.wins]
    rows.append(
        f"| `{name}` | {HANDS} | {np.mean([g.result.exhausted for g in games]):.2f} | {wins / HANDS:.2f} | "
        f"{np.mean(dbl) if dbl else float('nan'):.2f} | "
        + ", ".join(f"{k} {v}" for k, v in hows.most_common())
        + f" | {(time.perf_counter() - start) / HANDS * 1000:.0f} |"
    )
display(
    Markdown(
        "| variant | hands | exhausted | wins/hand | mean doublings (han) | how | ms/hand |\n"
        "|---|---:|---:|---:|---:|---|---:|\n" + "\n".join(rows)
    )
)

# %% [markdown]
# ## 3. What a seat observes
#
# The observation is the tensor of `envs.engine.observation`: `NUM_PLANES` planes over the 34 tile kinds.  Facts about
# tiles are per column (own hand as a 4-plane thermometer, discards per seat, melds, visible copies ...); facts that
# are not about a tile (phase, wall size, scores, dealer ...) are broadcast over all 34 columns.  Seats are relative
# (slot 0 = self, 1 = 下家 next, 2 = 对家 opposite, 3 = 上家 previous).  Below: seat 0's observation at its first own
# turn holding a 红中 with at least four legal discards, after at least 20 decisions of a fresh hand, with the plane
# groups of `PLANES` on the left.

# %%
env = sichuan_mahjong_v0.env(variant=VARIANT)
env.reset(seed=11)
players = [GreedyAgent() for _ in range(4)]
for i in range(4):
    players[i].reset(i, cfg)
picked = None
for step, agent in enumerate(env.agent_iter()):
    obs, _, terminated, truncated, _ = env.last()
    if terminated or truncated:
        env.step(None)
        continue
    seat = int(agent.split("_")[1])
    o, m = obs["observation"], obs["action_mask"]
    if seat == 0 and step >= 20 and m[:NUM_KINDS].sum() >= 4 and hand_counts(o)[31] > 0:
        picked = (o.copy(), m.copy())
        break
    env.step(players[seat].act(o, m))
obs0, mask0 = picked
print(f"observation {OBS_VERSION}: shape {obs0.shape}, {len(PLANES)} plane groups; mask: {mask0.shape[0]} actions")

fig, ax = plt.subplots(figsize=(9, 13))
im = ax.imshow(obs0, aspect="auto", cmap="viridis", interpolation="nearest")
ax.set_xticks(range(NUM_KINDS))
ax.set_xticklabels([tile_code(k) for k in range(NUM_KINDS)], rotation=90, fontsize=7)
centers, names = [], []
for g in PLANES:
    sl = SLICES[g.name]
    ax.axhline(sl.start - 0.5, color="white", linewidth=0.4)
    centers.append((sl.start + sl.stop - 1) / 2)
    names.append(f"{g.name} [{sl.start}-{sl.stop - 1}]" if g.rows > 1 else f"{g.name} [{sl.start}]")
ax.set_yticks(centers)
ax.set_yticklabels(names, fontsize=7)
ax.set_title(f"seat 0 observation, {OBS_VERSION}: {NUM_PLANES} planes x {NUM_KINDS} tile kinds")
fig.colorbar(im, ax=ax, fraction=0.03, pad=0.02)
show(fig)

# %% [markdown]
# `envs.engine.observation.decode` gives named numpy views into the tensor, so code (and people) can read it by plane
# name instead of row number.

# %%
v = decode(obs0)
print("own hand      ", format_counts(hand_counts(obs0).astype(int).tolist()))
print("drawn tile    ", [tile_code(k) for k in np.flatnonzero(v["drawn_tile"])])
print("void suits    ", ["-" if not row.any() else "mps"[int(np.flatnonzero(row)[0]) // 9] for row in v["void_suits"]])
print("wildcards     ", [tile_code(k) for k in np.flatnonzero(v["wild_kinds"])])
print("wall left     ", wall_remaining(obs0), "(plane 'wall' =", v["wall"][0], "= tiles / 136)")
print("phase         ", phase_of(obs0).value)
print("discards (per relative seat):")
for slot in range(4):
    print(f"   slot {slot}:", format_counts(v["discards"][slot].astype(int).tolist()) or "-")

# %% [markdown]
# ### The action mask
#
# `obs["action_mask"]` is an `int8` vector over the 183 flat actions; `envs.core.actions.action_name` decodes an id.
# Stepping an action whose mask entry is 0 raises `ValueError` (a learner must use the mask).  Masks at three
# kinds of decision: 换三张 (three picks of one suit, one per turn), the own turn above, and a claim window.


# %%
def legal_names(mask):
    return [action_name(int(i)) for i in np.flatnonzero(mask)]


env = sichuan_mahjong_v0.env(variant=VARIANT)
env.reset(seed=11)
shown = {}
players = [GreedyAgent() for _ in range(4)]
for i in range(4):
    players[i].reset(i, cfg)
for agent in env.agent_iter():
    obs, _, terminated, truncated, _ = env.last()
    if terminated or truncated:
        env.step(None)
        continue
    o, m = obs["observation"], obs["action_mask"]
    label = phase_of(o).value
    shown.setdefault(label, (agent, legal_names(m)))
    if {"exchange", "dingque", "claim"} <= set(shown):
        break
    env.step(players[int(agent.split("_")[1])].act(o, m))
for label in ("exchange", "dingque", "claim"):
    agent, names = shown[label]
    print(f"{label:9s} {agent}: {names}")
print(f"own turn  player_0: {legal_names(mask0)}")
try:
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0]))
except ValueError as exc:
    print("\nillegal action ->", str(exc)[:160], "...")

# %% [markdown]
# ## 4. Scoring
#
# `score_hand(variant, concealed, melds, win_tile, self_drawn=..., void_suit=..., ...)` scores one win given as
# strings (`m` 万, `p` 筒, `s` 条, `z` honors in the order 东南西北中发白, so `5z` is 红中).  The result carries the
# doublings, the payment per payer and the breakdown by pattern.  Below, worked examples of RULES.md §7 with the
# payments the rules document states.

# %%
CHENGDU_JIAFAN = load_variant("chengdu", zimo_bonus="jiafan")  # C13: C2 with 自摸加番 instead of 自摸加底
EXAMPLES = [
    # (example, variant (preset name or RuleConfig), concealed, melds, win tile, void, self-drawn, RULES §7 payment)
    ("C1 basic 平胡", "chengdu", "123m 456m 789m 234s 5s", [], "5s", "p", False, 1),
    ("C2 root + self-draw 加底", "chengdu", "345m 678s 789s 2s", ["pong 5m"], "2s", "p", True, 3),
    ("C3 对对胡 + kong root", "chengdu", "777m 88s 44s", ["kong 9s", "pong 3m"], "8s", "p", False, 4),
    ("C4 清龙七对 (capped)", "chengdu", "11m 22m 33m 4444m 55m 6m", [], "6m", "s", False, 8),
    ("C7 将对", "chengdu", "888m 55m 22s", ["pong 2m", "pong 5s"], "2s", "p", False, 8),
    ("C13 C2 under 自摸加番", CHENGDU_JIAFAN, "345m 678s 789s 2s", ["pong 5m"], "2s", "p", True, 4),
    ("H1 soft win (红中 as 3s/6s)", "hongzhong", "234m 567m 11s 789s 4s 5z", [], "5s", "p", False, 1),
    ("H2 hard self-draw 杀鬼", "hongzhong", "234m 567m 11s 789s 45s", [], "6s", "p", True, 4),
    ("H3 清一色 对对胡 杀鬼", "hongzhong", "777s 99s 33s", ["pong 2s", "pong 5s"], "3s", "p", False, 16),
    ("H4 七对 with 红中", "hongzhong", "11m 22m 33m 55m 77m 99m 5z", [], "8m", "p", False, 32),
    ("H6 龙七对 + 根, hard, self-draw", "hongzhong", "1111s 22s 33s 6666s 8s", [], "8s", "p", True, 512),
]
rows = []
for label, variant, concealed, melds, win, void, self_drawn, documented in EXAMPLES:
    r = score_hand(variant, concealed, melds, win, void_suit=void, self_drawn=self_drawn)
    breakdown = " + ".join(f"{PATTERN_NAMES_ZH.get(k, k)} {v}" for k, v in r.breakdown.items())
    ok = "✔" if r.payment == documented else "✘"
    name = getattr(variant, "name", variant)
    rows.append(
        f"| {label} | `{name}` | `{concealed}` {' '.join(melds)} | {win} | {breakdown} | {r.doublings} | "
        f"{r.payment} | {documented} {ok} |"
    )
    assert r.is_win and r.payment == documented, (label, r)
display(
    Markdown(
        "| example | variant | hand (melds) | win | breakdown | doublings | payment | RULES §7 |\n"
        "|---|---|---|---|---|---:|---:|---|\n" + "\n".join(rows)
    )
)

# %% [markdown]
# Not every 14 tiles are a win: a hand that still holds a tile of its void suit is not (P2), and in 红中 a discarded
# 红中 cannot be won on.  `ScoreResult.reason` says why.

# %%
for args, kwargs in [
    (("chengdu", "123m 456m 789m 234s 5p", [], "5p"), {"void_suit": "p"}),
    (("hongzhong", "234m 567m 11s 789s 45s", [], "5z"), {"void_suit": "p"}),
]:
    r = score_hand(*args, **kwargs)
    print(f"{args[1]} + {args[3]} ({args[0]}): is_win={r.is_win} reason={r.reason!r}")

# %% [markdown]
# ## 5. Replay a logged hand
#
# `Game.events` is a JSON-serialisable log: the first event (`hand_start`) holds everything chance decided (rules,
# wall, dealer, 换三张 direction) and every `action` event one seat's decision.  `envs.engine.replay.replay` feeds the same
# decisions to a fresh game; the rebuilt game equals the original, also after a round trip through JSON text.

# %%
log = json.loads(json.dumps(game.events))
size = len(json.dumps(game.events)) / 1024
print(f"{len(game.events)} events, {sum(e['type'] == 'action' for e in game.events)} decisions, {size:.1f} KiB as JSON")
rebuilt = replay(log)
print("same final state:", rebuilt.snapshot() == game.snapshot())
print("same scores:     ", list(rebuilt.scores), "==", list(game.scores))
print("same events:     ", rebuilt.events == game.events)
assert rebuilt.snapshot() == game.snapshot() and rebuilt.events == game.events

# %% [markdown]
# Replaying also works half way: feeding only the first `k` decisions gives the position at that point, e.g. to
# look at a decision again.  (A corrupted log is refused with a `ValueError` naming the event.)

# %%
action_at = [i for i, e in enumerate(log) if e["type"] == "action"]
partial = replay(log[: action_at[25]])  # everything before the 26th decision
print(f"after 25 decisions: {partial.phase.value} phase, seats {list(partial.pending)}, wall {partial.wall_remaining}")
bad = [dict(e) for e in log]
first = action_at[0]
bad[first] = {**bad[first], "seat": (bad[first]["seat"] + 1) % 4}  # a decision attributed to the wrong seat
try:
    replay(bad)
except ValueError as exc:
    print("corrupted log ->", str(exc)[:150])
