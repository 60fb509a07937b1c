"""Tests of envs/engine/render.py: the text view of a PlayerView and the one-line-per-event log."""

from __future__ import annotations

import pytest

from envs.core.actions import HU, PASS, PONG, discard, kong
from envs.core.melds import HIDDEN_TILE, Meld, MeldKind, parse_meld
from envs.core.tiles import GLYPH_BACK, GLYPHS, kind_of, parse_counts
from envs.engine.render import actions_text, meld_text, render_event, render_log, render_view, tile_text
from envs.engine.view import Phase, PlayerView, WinInfo


def make_view(**overrides) -> PlayerView:
    fields = dict(
        seat=2,
        num_players=4,
        variant="chengdu",
        phase=Phase.CLAIM,
        to_act=True,
        dealer=0,
        current=1,
        hand=tuple(parse_counts("123m 456m 99m 34s 55s 7s")),
        drawn_tile=None,
        melds=(
            (parse_meld("pong 5p", from_seat=3),),
            (Meld(MeldKind.ANKONG, HIDDEN_TILE),),
            (),
            (parse_meld("kong 9s", from_seat=0), parse_meld("ankong 1m")),
        ),
        discards=((kind_of("1p"), kind_of("9m")), (kind_of("5s"),), (kind_of("2p"),), ()),
        void_suits=(1, 0, 1, None),
        own_void=1,
        won=(False, False, False, True),
        active=(True, True, True, False),
        wins=(WinInfo(seat=3, tile=kind_of("7m"), from_seat=0, how="dianpao", doublings=2, payment=4, order=0),),
        revealed_hands=(None, None, None, None),
        claim_tile=kind_of("5s"),
        claim_from=1,
        exchange_given=(kind_of("1p"), kind_of("2p"), kind_of("3p")),
        exchange_received=(kind_of("7s"), kind_of("8s"), kind_of("9s")),
        exchange_offset=1,
        wall_remaining=43,
        scores=(-4, 0, 0, 4),
        match_points=(-4, 0, 0, 4),
        wild_kinds=(),
        indicator=None,
        pass_hu_locked=(),
        pass_pong_locked=(),
        legal_actions=(HU, PONG, PASS),
    )
    fields.update(overrides)
    return PlayerView(**fields)


def test_tile_and_meld_text():
    assert tile_text(kind_of("5m")) == "5m " + GLYPHS[4]
    assert tile_text(-1) == "??" and tile_text(None) == "??" and tile_text(40) == "??"
    assert meld_text(parse_meld("pong 5p", from_seat=3)) == f"碰 5p {GLYPHS[13] * 3} from S3"
    assert meld_text(Meld(MeldKind.ANKONG, HIDDEN_TILE)) == f"暗杠 ?? {GLYPH_BACK * 4}"
    assert meld_text(parse_meld("ankong 1m")) == f"暗杠 1m {GLYPHS[0] * 4}"
    assert meld_text(parse_meld("fei 7m 4s")) == f"飞 7m (+4s) {GLYPHS[6] * 2}{GLYPHS[21]}"
    assert meld_text(parse_meld("chi 345m")).startswith("吃 345m ")


def test_actions_text_groups_discards():
    assert actions_text([discard(0), discard(13), kong(4), HU]) == "discard 1m 5p | kong 5m | hu"
    assert actions_text([]) == "-"


def test_render_view_claim_window():
    text = render_view(make_view())
    lines = text.splitlines()
    assert lines[0] == "chuanma chengdu | phase claim | dealer S0 | turn S1 | wall 43"
    s0 = next(line for line in lines if line.startswith("S0"))
    assert "dealer" in s0 and "active" in s0 and "void 筒 p" in s0 and "score -4" in s0
    s3 = next(line for line in lines if line.startswith("S3"))
    assert "won" in s3 and "active" not in s3 and "score +4" in s3 and "void -" in s3
    assert f"碰 5p {GLYPHS[13] * 3} from S3" in text
    assert f"暗杠 ?? {GLYPH_BACK * 4}" in text  # hidden concealed kong stays hidden
    assert "直杠 9s" in text
    assert f"discards  {GLYPHS[9]}{GLYPHS[8]}  1p 9m" in text  # discard order kept, not sorted
    assert "win #1: S3 on 7m" in text and "from S0" in text and "2 doublings, 4 per payer" in text
    hand = next(line for line in lines if line.startswith("hand (S2)"))
    assert hand.endswith("12345699m 34557s")
    assert "".join(GLYPHS[k] for k in (0, 1, 2, 3, 4, 5, 8, 8, 20)) in hand
    assert f"claim      5s {GLYPHS[22]} discard from S1" in text
    assert "exchange   gave" in text and "123p" in text and "789s" in text and "next 下家 (+1)" in text
    assert lines[-1] == "legal      hu | pong | pass"


def test_render_view_hides_nothing_it_should_show_and_shows_nothing_hidden():
    text = render_view(make_view())
    assert text.count("hand (") == 1  # only the viewer's own concealed hand
    assert "revealed" not in text
    revealed = make_view(revealed_hands=(None, None, None, tuple(parse_counts("111s 234s 567s 8s"))))
    assert "revealed  " in render_view(revealed) and "1112345678s" in render_view(revealed)


def test_render_view_self_turn_and_waiting():
    view = make_view(
        phase=Phase.SELF,
        current=2,
        claim_tile=None,
        claim_from=None,
        drawn_tile=kind_of("7s"),
        legal_actions=(discard(0), discard(24), HU),
        pass_hu_locked=(kind_of("5s"),),
        pass_pong_locked=(kind_of("2m"),),
    )
    text = render_view(view)
    assert f"drawn      7s {GLYPHS[24]}" in text
    assert "legal      discard 1m 7s | hu" in text
    assert "过胡 no hu on 5s" in text and "过碰 no pong on 2m" in text
    assert "claim " not in text
    waiting = render_view(make_view(to_act=False, legal_actions=()))
    assert waiting.splitlines()[-1] == "legal      - (waiting)"


def test_render_view_rob_window_and_wilds():
    view = make_view(phase=Phase.ROB, wild_kinds=(31,), variant="hongzhong", hand=tuple(parse_counts("123m 5z")))
    text = render_view(view)
    assert "added kong (rob: 抢杠) from S1" in text
    assert f"wilds {GLYPHS[31]}  5z" in text
    assert f"{GLYPHS[31]}" in next(line for line in text.splitlines() if line.startswith("hand"))


LOG = [
    {"type": "hand_start", "visible_to": [], "variant": "chengdu", "config": {"num_players": 4}, "dealer": 0,
     "seed": 7, "wall": list(range(108))},
    {"type": "deal", "seat": 1, "tiles": [0, 1, 2]},
    {"type": "deal", "seat": 2},
    {"type": "exchange", "seat": 1, "given": [9, 10, 11], "received": [18, 19, 20], "from_seat": 0},
    {"type": "exchange_direction", "offset": 3},
    {"type": "dingque", "voids": [0, 1, 2, 1]},
    {"type": "play_start", "dealer": 0, "wall_remaining": 55},
    {"type": "draw", "seat": 3, "replacement": False},
    {"type": "draw", "seat": 1, "tile": 4, "replacement": True},
    {"type": "action", "seat": 1, "phase": "self", "action": {"type": "DISCARD", "tile": 4, "tiles": []}},
    {"type": "action", "seat": 2, "phase": "claim"},
    {"type": "discard", "seat": 1, "tile": 4},
    {"type": "claims_resolved", "tile": 4, "from_seat": 1, "winners": [], "claimer": 2, "claim": "PONG"},
    {"type": "claims_resolved", "tile": 5, "from_seat": 1, "winners": [], "claimer": None, "claim": None},
    {"type": "claims_resolved", "tile": 6, "from_seat": 1, "winners": [0, 2], "claimer": None, "claim": None},
    {"type": "pong", "seat": 2, "tile": 4, "from_seat": 1},
    {"type": "kong", "seat": 3, "kind": "ankong", "tile": -1},
    {"type": "kong", "seat": 3, "kind": "kong", "tile": 8, "from_seat": 1},
    {"type": "kong_declared", "seat": 2, "tile": 4},
    {"type": "rob_resolved", "tile": 4, "from_seat": 2, "winners": [0]},
    {"type": "win", "seat": 0, "tile": 4, "from_seat": 2, "how": "qianggang", "doublings": 1, "payment": 2,
     "breakdown": {"ping_hu": 0, "qiang_gang": 1}, "hand": None},
    {"type": "transfer", "payer": 2, "receiver": 0, "amount": 2, "reason": "qianggang"},
    {"type": "hand_end", "exhausted": True, "bankrupt": False, "scores": [2, 0, -2, 0], "next_dealer": 0},
]  # fmt: skip


def test_render_log_one_line_per_event():
    lines = render_log(LOG).splitlines()
    assert len(lines) == len(LOG)
    assert lines[0] == "hand start: variant chengdu, dealer S0, seed 7, wall 108 tiles"
    assert lines[1] == f"deal S1: {GLYPHS[0]}{GLYPHS[1]}{GLYPHS[2]}  123m"
    assert lines[2] == "deal S2"  # redacted tiles stay hidden
    assert lines[3].startswith("exchange S1: gave") and lines[3].endswith("from S0")
    assert lines[4] == "exchange direction: previous 上家 (+3)"
    assert lines[5] == "dingque 定缺: S0 万 m, S1 筒 p, S2 条 s, S3 筒 p"
    assert lines[6] == "play starts: dealer S0, wall 55"
    assert lines[7] == "S3 draws a tile"
    assert lines[8] == f"S1 draws 5m {GLYPHS[4]} (replacement 杠后补牌)"
    assert lines[9] == "S1 [self] discard 5m"
    assert lines[10] == "S2 decides (claim)"
    assert lines[11] == f"S1 discards 5m {GLYPHS[4]}"
    assert lines[12].endswith("from S1: pong by S2")
    assert lines[13].endswith(": none")
    assert lines[14].endswith("hu by S0, S2")
    assert lines[15] == f"S2 pongs 碰 5m {GLYPHS[4]} from S1"
    assert lines[16] == "S3 ankong 暗杠 ??"
    assert lines[17] == f"S3 kong 直杠 9m {GLYPHS[8]} from S1"
    assert "added kong 补杠 5m" in lines[18]
    assert lines[19].endswith("robbed 抢杠 by S0")
    assert lines[20].startswith(f"S0 wins on 5m {GLYPHS[4]} from S2 (qianggang 抢杠): 1 doublings, 2 per payer")
    assert "[ping_hu 0, qiang_gang 1]" in lines[20]
    assert lines[21] == "  S2 -> S0: 2 (qianggang)"
    assert lines[22] == "hand ends (exhausted 流局): S0 +2 S1 0 S2 -2 S3 0; next dealer S0"


def test_render_log_never_crashes_on_odd_events():
    odd = [
        {"type": "mystery", "seat": 1, "x": [1, 2]},
        {"type": "dingque", "voids": None},  # malformed known type: generic line
        {"type": "discard"},
        {"no_type": True},
        "not a dict",
        42,
        {"type": "win", "seat": 1, "tile": 99, "breakdown": "?"},
        {"type": "kong", "seat": 1, "kind": "weird", "tile": 3},
    ]
    lines = render_log(odd).splitlines()
    assert len(lines) == len(odd)
    assert lines[0] == "mystery: seat=1 x=[1, 2]"
    assert lines[1] == "dingque: voids=None"
    assert lines[2] == "S? discards ??"
    assert lines[3] == "?: no_type=True"
    assert lines[4] == "? 'not a dict'"
    assert lines[6].startswith("S1 wins on ??")
    assert lines[7].startswith("S1 weird weird")


def test_render_log_table_size():
    two = [{"type": "exchange_direction", "offset": 1}, {"type": "discard", "seat": 1, "tile": 0}]
    assert render_log(two).splitlines()[0] == "exchange direction: opposite 对家 (+1)"
    assert render_log(two, num_players=4).splitlines()[0] == "exchange direction: next 下家 (+1)"
    assert render_event({"type": "exchange_direction", "offset": 2}, 4) == "exchange direction: opposite 对家 (+2)"


def test_render_real_games_smoke():
    """Random legal play through the engine: every view and the log render without errors."""
    game_mod = pytest.importorskip("envs.engine.game")
    for variant, seed in (("chengdu", 1), ("hongzhong", 2), ("xueliu", 3)):
        g = game_mod.Game(variant, seed=seed)
        step = 0
        while not g.is_over and step < 2000:
            for s in list(g.pending):
                legal = g.legal_actions(s)
                if legal:
                    g.step(s, legal[(step * 7 + s) % len(legal)])
            step += 1
            if step % 25 == 0:
                for s in range(g.cfg.num_players):
                    assert render_view(g.view(s)).startswith(f"chuanma {variant}")
        log = render_log(g.events)
        assert len(log.splitlines()) == len(g.events)
        assert "hand start" in log
        for s in range(g.cfg.num_players):
            assert len(render_log(g.events_for(s)).splitlines()) == len(g.events_for(s))
