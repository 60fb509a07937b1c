# %% [markdown]
# # Reading a training run — MaskablePPO self-play on 红中
#
# `chuanma train` / `chuanma main` (`training/trainer.py`) train one variant by self-play with sb3-contrib's
# `MaskablePPO`: a behaviour-cloning warm start from a baseline (`value` in 红中), then PPO in *segments*, against a
# pool of frozen snapshots of the learner and rule-based baselines, with duplicate evaluations against the baselines
# along the way.  Everything a run produces lands in its **run directory**.  This notebook trains a short run (or loads
# one), and reads it:
#
# 1. the configuration and the files of the run directory;
# 2. the learning curves from `metrics.jsonl` and the evaluations from `evals.jsonl` / `report.json`;
# 3. the final policy against the baselines (duplicate evaluation with 95 % intervals);
# 4. what the policy does in a few positions: the rendered table and its top action probabilities.
#
# A short CPU run does not make a strong player; the point is how to read a run.  Set `CHUANMA_RUN_DIR` to a longer
# run's directory (e.g. from `bash dev.sh main`) to read that one instead.  `CHUANMA_NOTEBOOK_BUDGET=small` trains a
# few hundred steps (CI); the stored outputs are the full budget (five to eight minutes of training on two cores).

# %%
import json
import time

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display
from nbsupport import BUDGET, policy_run, scaled, setup_plots, show, shown

from agents.greedy import GreedyAgent
from agents.policy import PolicyAgent
from agents.registry import make_agent
from envs.core.actions import EXCHANGE_BASE, ActionType, action_name, decode, exchange
from envs.core.rule_config import load_variant
from envs.engine.game import Game
from envs.engine.observation import ObservationEncoder, legal_mask
from envs.engine.render import render_view
from envs.engine.view import Phase
from training.evaluation.evaluate import one_vs_three, to_markdown, wall_seed
from training.train_config import load_train_config

setup_plots()
print(f"budget: {BUDGET}")

# %% [markdown]
# ## 1. The run
#
# `nbsupport.policy_run()` trains the notebooks' run — `configs/train/hongzhong.yaml` scaled to the notebook budget
# (`nbsupport.train_config`) — unless it already exists or `CHUANMA_RUN_DIR` names another run directory.  Every
# hyperparameter of a run is in its `config.yaml`; `run.json` records the versions of everything involved.

# %%
start = time.perf_counter()
RUN, how = policy_run()
print(f"run directory {shown(RUN)} ({how}) in {time.perf_counter() - start:.0f} s")
for path in sorted(RUN.iterdir()):
    size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else path.stat().st_size
    print(f"  {path.name + ('/' if path.is_dir() else ''):22s} {size / 1024:8.1f} KiB")
RUN_CONFIG = load_train_config(RUN / "config.yaml")

# %%
print((RUN / "config.yaml").read_text())

# %%
REPORT = json.loads((RUN / "report.json").read_text())
print(
    f"variant {REPORT['variant']}, seed {REPORT['seed']}, {REPORT['steps']} PPO steps in {REPORT['segments']} "
    f"segments, {REPORT['wall_time_s']:.0f} s of training (final evaluation {REPORT['final_eval_s']:.0f} s)"
)
bc = REPORT.get("bc")
if bc:
    print(
        f"behaviour cloning from {bc['teacher']}: {bc['decisions']} decisions ({bc['hands']} hands), "
        f"agreement with the teacher: train {bc['train_accuracy']:.3f}, held out {bc['heldout_accuracy']:.3f}"
    )

# %% [markdown]
# ## 2. Learning curves
#
# `metrics.jsonl` has one line per PPO rollout/update with sb3's scalars (the same values go to TensorBoard under
# `tb/`).  The episode reward is the learner's hand score × `reward_scale` against the self-play pool — a moving
# target, since the pool gains a snapshot of the learner every segment.  Entropy, KL and clip fraction show how
# fast the policy changes; explained variance how well the value head predicts the returns.

# %%
metrics = [json.loads(line) for line in (RUN / "metrics.jsonl").read_text().splitlines() if line.strip()]
PANELS = [
    ("rollout/ep_rew_mean", "episode reward (pool)"),
    ("rollout/ep_len_mean", "learner decisions per hand"),
    ("train/entropy_loss", "entropy loss (= -entropy)"),
    ("train/approx_kl", "approx. KL per update"),
    ("train/value_loss", "value loss"),
    ("train/explained_variance", "explained variance"),
]
fig, axes = plt.subplots(2, 3, figsize=(11, 5.5))
for ax, (key, title) in zip(axes.flat, PANELS):
    rows = [m for m in metrics if key in m]
    xs = np.array([m["step"] for m in rows])
    ys = np.array([m[key] for m in rows])
    ax.plot(xs, ys, color="tab:blue", linewidth=0.8, alpha=0.5)
    if len(ys) >= 5:
        k = max(2, len(ys) // 10)
        ax.plot(xs[k - 1 :], np.convolve(ys, np.ones(k) / k, mode="valid"), color="tab:blue", linewidth=1.6)
    ax.set_title(title, fontsize=9)
    ax.set_xlabel("learner steps", fontsize=8)
for x in range(0, REPORT["steps"] + 1, RUN_CONFIG.schedule.segment_steps):
    for ax in axes.flat:
        ax.axvline(x, color="gray", linewidth=0.4, linestyle=":")
fig.suptitle(
    f"{REPORT['name']}: PPO diagnostics (thin: per rollout, thick: moving mean; dotted: segments)", fontsize=10
)
show(fig)

# %% [markdown]
# ### Evaluations during training
#
# Every `eval.every` segments the learner (greedy/argmax play) was evaluated by duplicate one-vs-three against
# `random` and `greedy` on the same walls (`eval.seed`), and at the end on more walls.  The pool's first snapshot
# is the behaviour-cloned policy before any PPO; we evaluate it here on the periodic evaluation's walls, so the
# curve starts at step 0.

# %%
evals = [json.loads(line) for line in (RUN / "evals.jsonl").read_text().splitlines() if line.strip()]
snapshot0 = sorted((RUN / "pool").glob("snap_*.zip"))[0]
for opponent in RUN_CONFIG.eval.opponents:
    res = one_vs_three(
        RUN_CONFIG.variant, f"policy:{snapshot0}", opponent, walls=RUN_CONFIG.eval.deals, seed=RUN_CONFIG.eval.seed
    )
    evals.append(
        {
            "step": 0,
            "opponent": opponent,
            "points": res.points,
            "ci_low": res.ci_low,
            "ci_high": res.ci_high,
            "walls": res.walls,
        }
    )
final = REPORT["final_eval"]

fig, ax = plt.subplots(figsize=(7, 3.6))
for i, opponent in enumerate(RUN_CONFIG.eval.opponents):
    pts = sorted((e for e in evals if e["opponent"] == opponent), key=lambda e: e["step"])
    xs = [e["step"] for e in pts]
    ys = [e["points"] for e in pts]
    lo = [e["points"] - e["ci_low"] if e["ci_low"] is not None and np.isfinite(e["ci_low"]) else 0 for e in pts]
    hi = [e["ci_high"] - e["points"] if e["ci_high"] is not None and np.isfinite(e["ci_high"]) else 0 for e in pts]
    ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=f"vs {opponent} ({pts[-1]['walls']} walls)")
    f = next(e for e in final if e["opponent"] == opponent)
    ax.errorbar(
        [f["step"] + REPORT["steps"] * 0.02 * (i + 1)],
        [f["points"]],
        yerr=[[f["points"] - f["ci_low"]], [f["ci_high"] - f["points"]]],
        marker="s",
        capsize=3,
        color=ax.lines[-1].get_color(),
        alpha=0.6,
    )
ax.axhline(0, color="black", linewidth=0.7)
ax.set_xlabel("learner steps (squares: final evaluation, more walls)")
ax.set_ylabel("points per hand vs the field")
ax.set_title("duplicate evaluation during training (95% CI)")
ax.legend(fontsize=8)
show(fig)

# %% [markdown]
# What the evaluations support, read off the intervals (the start is the behaviour-cloned policy on the periodic
# evaluation's walls, the end the final evaluation on more walls of the same seed):

# %%
for opponent in RUN_CONFIG.eval.opponents:
    s = next(e for e in evals if e["opponent"] == opponent and e["step"] == 0)
    f = next(e for e in final if e["opponent"] == opponent)
    if f["ci_low"] is None or s["ci_low"] is None or not np.isfinite(s["ci_low"]):
        print(f"vs {opponent}: too few walls for intervals")
        continue
    if f["ci_low"] > s["ci_high"]:
        change = "better than the warm start (the intervals do not overlap)"
    elif f["ci_high"] < s["ci_low"]:
        change = "worse than the warm start (the intervals do not overlap)"
    else:
        change = "the intervals overlap: this run does not show a change since the warm start"
    print(
        f"vs {opponent}: warm start {s['points']:+.2f} [{s['ci_low']:+.2f}, {s['ci_high']:+.2f}], final "
        f"{f['points']:+.2f} [{f['ci_low']:+.2f}, {f['ci_high']:+.2f}] at step {f['step']} — {change}"
    )

# %% [markdown]
# ## 3. The final policy against the baselines
#
# The run's final evaluation (against the configured opponents) is in `report.json`; we add the value-seeking
# baseline (`agents.value.ValueAgent`) with `training.evaluation.evaluate.one_vs_three` on the `policy:PATH` checkpoint —
# the same protocol the `chuanma eval` command runs.

# %%
VALUE_WALLS = scaled(24, 1)
value_res = one_vs_three(
    RUN_CONFIG.variant, f"policy:{RUN / 'final.zip'}", "value", walls=VALUE_WALLS, seed=RUN_CONFIG.eval.seed
)
value_res.challenger = "learner"
rows = [
    f"| learner | {e['opponent']} | {e['walls']} | {e['hands']} | {e['points']:+.3f} | "
    f"[{e['ci_low']:+.3f}, {e['ci_high']:+.3f}]{' *' if e['ci_low'] > 0 or e['ci_high'] < 0 else ''} | "
    f"{e['win_rate']:.3f} | {e['deal_in_rate']:.3f} |"
    for e in final
    if e["ci_low"] is not None
]
display(
    Markdown(
        "| challenger | opponent | walls | hands | points / hand | 95 % CI | win rate | deal-in rate |\n"
        "|---|---|---:|---:|---:|---|---:|---:|\n"
        + "\n".join(rows)
        + "\n\n"
        + "Against `value`:\n\n"
        + to_markdown([value_res], variant=RUN_CONFIG.variant)
    )
)

# %% [markdown]
# ## 4. What does the policy do?
#
# `PolicyAgent.logits` gives the network's action logits; masking the illegal actions and taking the softmax gives
# its action probabilities (the agent plays the argmax).  Below, positions from one hand in which the learner holds
# seat 0 against three greedy players: the table as seat 0 sees it (`envs.engine.render.render_view`), the policy's top
# five actions, and what the greedy baseline would play in its place.

# %%
CFG = load_variant(RUN_CONFIG.variant)
ENC = ObservationEncoder.from_config(CFG)
learner = PolicyAgent.load(RUN / "final.zip", variant=CFG)


def drive(seed, agents, hook):
    """Play the hand ``Game(CFG, seed=seed)`` to the end with ``agents[seat].act`` deciding (换三张 as three
    picks, like the AEC environment); ``hook(seat, view, obs, mask, action)`` sees every decision."""
    game = Game(CFG, seed=seed, record_events=False)
    for seat, agent in enumerate(agents):
        agent.reset(seat, CFG)
    picks = [[] for _ in agents]
    while not game.is_over:
        seat = game.pending[0]
        view = game.view(seat)
        obs = ENC.encode(view, exchange_picks=picks[seat])
        mask = legal_mask(view, picks[seat])
        a = agents[seat].act(obs, mask)
        hook(seat, view, obs, mask, a)
        if view.phase == Phase.EXCHANGE and decode(a).type == ActionType.EXCHANGE:
            picks[seat].append(a - EXCHANGE_BASE)
            if len(picks[seat]) < 3:
                continue
            action, picks[seat] = exchange(picks[seat]), []
        else:
            action = decode(a)
        game.step(seat, action)
    return game


def top_actions(obs, mask, k=5):
    """The policy's ``k`` most likely legal actions: masked softmax of its logits."""
    ids = np.flatnonzero(mask)
    logits = learner.logits(obs)[ids].astype(np.float64)
    p = np.exp(logits - logits.max())
    p /= p.sum()
    order = np.argsort(-p)[:k]
    return [(action_name(int(ids[i])), float(p[i])) for i in order]


WANT = {Phase.DINGQUE: "定缺 (void suit)", Phase.SELF: "own turn, mid-hand", Phase.CLAIM: "claim window"}
positions = {}
shadow = GreedyAgent()  # the greedy baseline in the learner's seat, shown the same observations
shadow.reset(0, CFG)


def collect(seat, view, obs, mask, action):
    if seat != 0:
        return
    greedy_choice = shadow.act(obs, mask)
    label = WANT.get(view.phase)
    interesting = mask.sum() >= 2
    if view.phase == Phase.SELF:  # mid-hand, several choices, no void-suit tile left to throw first
        void_left = view.own_void is not None and any(view.hand[9 * view.own_void : 9 * view.own_void + 9])
        interesting = mask.sum() >= 5 and view.wall_remaining <= 40 and not void_left
    if label and label not in positions and interesting:
        positions[label] = (render_view(view), top_actions(obs, mask), action_name(greedy_choice), action_name(action))


for h in range(100):
    drive(wall_seed(7, h), [learner, GreedyAgent(), GreedyAgent(), GreedyAgent()], collect)
    if len(positions) == len(WANT):
        break

for label in WANT.values():
    if label not in positions:
        print(f"(no {label} position found)")
        continue
    table, top, greedy_choice, played = positions[label]
    print(f"===== {label} =====")
    print(table)
    print("policy top-5: " + ", ".join(f"{name} {p:.2f}" for name, p in top))
    print(f"the policy plays {played!r}; the greedy baseline would play {greedy_choice!r}\n")

# %% [markdown]
# The same probabilities as a picture, for the own-turn position:

# %%
label = "own turn, mid-hand"
if label in positions:
    _, top, greedy_choice, _ = positions[label]
    fig, ax = plt.subplots(figsize=(6, 2.6))
    names = [n for n, _ in top]
    ax.barh(
        range(len(top)), [p for _, p in top], color=["tab:orange" if n == greedy_choice else "tab:blue" for n in names]
    )
    ax.set_yticks(range(len(top)))
    ax.set_yticklabels(names)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("policy probability (orange: the greedy baseline's choice)")
    ax.set_title("top actions of the trained policy, own turn")
    show(fig)

# %% [markdown]
# ## 5. How often does the policy agree with its teacher?
#
# The warm start cloned a rule-based teacher (`bc.teacher` of the run's configuration); PPO then moved away from
# it.  The agreement with the teacher over many decisions of the final policy's own hands (learner in every seat),
# by phase:

# %%
TEACHER = RUN_CONFIG.bc.teacher
AGREE_HANDS = scaled(20, 2)
agree = {}
for h in range(AGREE_HANDS):
    shadows = [make_agent(TEACHER) for _ in range(4)]
    for seat, agent in enumerate(shadows):
        agent.reset(seat, CFG)

    def compare(seat, view, obs, mask, action, shadows=shadows):
        if mask.sum() >= 2:
            agree.setdefault(view.phase.value, []).append(action == shadows[seat].act(obs, mask))

    drive(wall_seed(11, h), [learner] * 4, compare)
rows = "\n".join(f"| {k} | {len(v)} | {np.mean(v):.3f} |" for k, v in agree.items())
display(
    Markdown(
        f"{AGREE_HANDS} hands, decisions with at least two legal actions:\n\n"
        f"| phase | decisions | agreement with {TEACHER} |\n|---|---:|---:|\n" + rows
    )
)
