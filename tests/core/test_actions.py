"""The flat action layout: every id decodes and re-encodes to itself; bad ids raise."""

from __future__ import annotations

import pytest

from envs.core import actions as A


def test_round_trip_every_id():
    for i in range(A.ACTION_SPACE_SIZE):
        act = A.decode(i)
        if act.type == A.ActionType.EXCHANGE:
            assert A.EXCHANGE_BASE + act.tiles[0] == i
            with pytest.raises(ValueError, match="no single flat id"):
                A.encode(act)
        else:
            assert A.encode(act) == i
        assert A.action_name(i)


def test_names():
    assert A.action_name(4) == "discard 5m"
    assert A.action_name(A.KONG_BASE + 31) == "kong 5z"
    assert A.action_name(A.PONG_ID) == "pong"
    assert A.action_name(A.DINGQUE_BASE + 1) == "dingque p"
    assert str(A.exchange([20, 18, 19])) == "exchange 123s"


@pytest.mark.parametrize("bad", [-1, A.ACTION_SPACE_SIZE, 1.5, "3", None])
def test_bad_ids_raise(bad):
    with pytest.raises(ValueError):
        A.decode(bad)


def test_engine_action_collects_three_exchange_picks():
    picks: list[int] = []
    assert A.engine_action(A.EXCHANGE_BASE + 5, picks) is None and picks == [5]
    assert A.engine_action(A.EXCHANGE_BASE + 2, picks) is None and picks == [5, 2]
    assert A.engine_action(A.EXCHANGE_BASE + 5, picks) == A.exchange((2, 5, 5))
    assert picks == []
    assert A.engine_action(A.HU_ID, picks) == A.HU and picks == []
    assert A.engine_action(7, picks) == A.decode(7)
