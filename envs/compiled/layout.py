"""State layout (状态布局) of the compiled engine: one ``int32`` vector per hand, named offsets into it.

The compiled engine (:mod:`envs.compiled.kernel`) keeps each hand of a batch in one row of an ``int32`` array
``state`` of shape ``(N, STATE_SIZE)``; every field below is an offset into that row (per-seat fields hold one
entry per seat, ``seat * 34 + kind`` for per-kind tables).  One flat row makes a hand cheap to copy, compare and
reset, and lets numba compile every access to a constant offset.

The fields mirror the attributes of :class:`envs.engine.game.Game` of the same meaning; :func:`envs.compiled.mirror.
state_of_game` fills a row from a ``Game`` (the differential tests compare the two engines field by field).
Unset seats / tiles are ``-1``.  Money (scores, kong payment records) is kept by the Python ledger
(:mod:`envs.compiled.ledger`); the kernel only reads ``SCORES``, which the ledger writes back.

Adding or moving a field changes the compiled code: numba's cache is stamped with every source of the package
(:mod:`envs.compiled._cache`), so the next use recompiles.
"""

from __future__ import annotations

NP = 4  # seat slots: a row holds four seats; a smaller table (``NSEATS``) leaves the last slots empty
NK = 34  # tile kinds
NSUITED = 27
WALL_LEN = 136  # wall capacity: 34 kinds x 4 copies (Wuhan's honors included; unused cells -1)
MAX_MELDS = 4
MELD_FIELDS = 3  # (kind, tile, from_seat)

# meld kinds (MELDS[seat, i, 0])
M_NONE, M_PONG, M_KONG, M_ANKONG, M_BUKONG, M_FEI, M_CHI = 0, 1, 2, 3, 4, 5, 6  # 飞: Yibin; 吃 (tile: the lowest)

# phases: the row order of the observation's ``phase`` planes (envs.engine.observation.PHASES)
PH_EXCHANGE, PH_DINGQUE, PH_SELF, PH_CLAIM, PH_ROB, PH_DECLARE, PH_END = 0, 1, 2, 3, 4, 5, 6

# claim / rob window options and decisions (bit flags in OPTIONS; DECISION holds one of them, 0 = none yet)
O_HU, O_PONG, O_KONG, O_PASS, O_FEI = 1, 2, 4, 8, 16
O_CHI = 32  # 吃 with the claimed tile low / middle / high of the run: O_CHI << 0, 1, 2

_fields: dict[str, tuple[int, int]] = {}
_size = 0


def _field(name: str, length: int = 1) -> int:
    global _size
    start = _size
    _fields[name] = (start, length)
    _size += length
    return start


# ---- scalars ------------------------------------------------------------------------------------------------
PHASE = _field("phase")
NSEATS = _field("num_seats")  # players at the table (2-4): seats 0 .. NSEATS-1, turn order modulo NSEATS
DEALER = _field("dealer")
CURRENT = _field("current")
FRONT = _field("front")  # next live-wall index to draw
BACK = _field("back")  # one past the last live-wall index
DRAWN = _field("drawn_tile")  # -1: none
AFTER_PONG = _field("after_pong")
AFTER_KONG = _field("after_kong")
DREW_LAST = _field("drew_last")
KONG_FEEDER = _field("kong_feeder")  # -1: none
TURN_KONGS = _field("turn_kongs")
FIRST_ACTION = _field("first_action")
DIHU_DRAW = _field("dihu_draw")
MELD_MADE = _field("meld_made")
DISCARD_COUNT = _field("discard_count")
CLAIM_TILE = _field("claim_tile")  # -1: none
CLAIM_FROM = _field("claim_from")  # -1: none
EX_OFFSET = _field("exchange_offset")  # 换三张 receiver = giver + offset; 0 without 换三张
EX_DONE = _field("exchange_done")
VOID_REVEALED = _field("void_revealed")
OVER = _field("is_over")
EXHAUSTED = _field("exhausted")
BANKRUPT = _field("bankrupt")  # 1: the hand ended with a seat below zero (start_points > 0); set by the ledger
NUM_WINS = _field("num_wins")
FIRST_WIN_SEATS = _field("first_win_seats")  # bitmask of the winners of the first win event (next dealer)
FIRST_WIN_PAYER = _field("first_win_payer")  # -1: a self-draw
REVEAL = _field("reveal_hands")  # 1: winners' concealed hands are shown (血流 frozen hands, reveal_winner_hand)
CONT = _field("continuation")  # C_*: what the hand does next, stored while the ledger checks for a bankruptcy
CONT_SEAT = _field("continuation_seat")
CONT_ARG = _field("continuation_arg")  # the discarder of a claimed kong (its replacement draw sets KONG_FEEDER)
WILD = _field("wild")  # the wildcard kind (红中 31; Yibin: the lower 听用 once flipped), -1 without wildcards
WILD2 = _field("wild2")  # Yibin: the higher 听用 kind once the 本金 is flipped, else -1
INDICATOR = _field("indicator")  # the flipped 本金 (Yibin) / 赖子 indicator (Wuhan), -1 before the flip or without one
WUHAN = _field("wuhan")  # 1: Wuhan — 红中 never melded or in a win, 乱将 / 乱风 hands complete in any arrangement
HIDE_ANKONG = _field("hide_ankong")  # 1: 暗杠 are not revealed (reveal_concealed_kong = false; others see a count)
XUELIU = _field("xueliu")  # 1: 血流成河 continuation (winners stay, frozen); 0: 血战到底 (winners leave)
BAOHU_DISCARD = _field("baohu_discard")  # 断卡根: the dealer declared 报胡 and owes a discard that keeps it ready
QINGHU_SEAT = _field("qinghu_seat")  # 断卡根: whose 请胡 single is being answered now, -1: none
# ---- per seat -----------------------------------------------------------------------------------------------
VOID = _field("void", NP)  # declared void suit 0-2, -1 before 定缺
WON = _field("won", NP)
ACTIVE = _field("active", NP)
FIRST_DRAW_PENDING = _field("first_draw_pending", NP)
SCORES = _field("scores", NP)  # written by the ledger
LAST_DISCARD = _field("last_discard", NP)  # kind, -1: none yet
NUM_MELDS = _field("num_melds", NP)
OPTIONS = _field("options", NP)  # claim / rob window: O_* bits of each asked seat (0: not asked)
DECISION = _field("decision", NP)  # the seat's answer in the open simultaneous decision (0: none yet)
HU_VALUE = _field("hu_value", NP)  # pass_hu_allow_higher: the doublings of the win offered in the open window
PENDING = _field("pending", NP)  # 1: the seat's decision is awaited
PICK_COUNT = _field("pick_count", NP)  # 换三张 picks made so far (0-3); 3 = the seat has answered
DINGQUE_CHOICE = _field("dingque_choice", NP)  # 定缺 answer before it is revealed, -1: none
BAOHU = _field("baohu", NP)  # 断卡根: declared 报胡
FORFEIT = _field("forfeit", NP)  # 断卡根: a 报胡 seat that passed a win can no longer win
KONGS_AT_BAOHU = _field("kongs_at_baohu", NP)  # 断卡根: the seat's kongs when it declared
QINGHU = _field("qinghu", NP)  # 断卡根: announced 请胡 at least once
RED_KONGS = _field("red_kongs", NP)  # Wuhan: 红中杠 played this hand
LAIZI_KONGS = _field("laizi_kongs", NP)  # Wuhan: 赖子杠 played this hand
# ---- per seat, per kind -------------------------------------------------------------------------------------
HANDS = _field("hands", NP * NK)
DISCARDS = _field("discards", NP * NK)  # discarded copies, claimed ones included
WIN_TILES = _field("win_tiles", NP * NK)  # wins of the seat on each kind
HU_LOCK = _field("hu_lock", NP * NK)  # 过胡 same_tile: 1 = declined a win on the kind since the last draw
PONG_LOCK = _field("pong_lock", NP * NK)  # 过碰: 1 = passed a pong of the kind since the last draw
# ---- per seat, 3 tiles --------------------------------------------------------------------------------------
PICKS = _field("picks", NP * 3)  # 换三张 picked kinds in pick order
GIVEN = _field("given", NP * 3)  # the three tiles passed (after the exchange resolved)
RECEIVED = _field("received", NP * 3)
# ---- melds --------------------------------------------------------------------------------------------------
MELDS = _field("melds", NP * MAX_MELDS * MELD_FIELDS)  # (kind M_*, tile, from_seat or -1) in the order made
MELD_WILDS = _field("meld_wilds", NP * MAX_MELDS * 2)  # the 听用 kinds inside each 飞 meld, in the order used; -1
MELD_CLAIMED = _field("meld_claimed", NP * MAX_MELDS)  # the claimed kind of each 吃 meld, -1 for other melds
# ---- public extras ------------------------------------------------------------------------------------------
SHOWN_WIN_TILES = _field("shown_win_tiles", NK)  # self-drawn / robbed winning tiles set aside (seen by everyone)
# ---- the wall -----------------------------------------------------------------------------------------------
WALL = _field("wall", WALL_LEN)  # kinds in draw order (the Python engine's seeded shuffle)

STATE_SIZE = _size
FIELDS: dict[str, tuple[int, int]] = dict(_fields)
"""name -> (offset, length) of every field, for tests and debugging."""


def describe(row) -> dict[str, list[int] | int]:
    """The fields of one state row by name (a debugging aid: ``describe(state[i])``)."""
    out: dict[str, list[int] | int] = {}
    for name, (start, length) in FIELDS.items():
        vals = [int(v) for v in row[start : start + length]]
        out[name] = vals[0] if length == 1 else vals
    return out
