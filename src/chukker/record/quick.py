"""The quick yes of each event type, generated from
``chukker.record.definitions.EVENTS`` by ``quick_source()``: do not edit. After
changing the tables: ``python -c 'from chukker.record.definitions import *;
print(quick_source(), end="")' > src/chukker/record/quick.py``.
``tests/record/test_quick.py`` fails while it is out of date.
"""

# ruff: noqa: E501
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

INF: Final = float("inf")
_S0: Final = frozenset(['at', 'type'])
_S1: Final = frozenset(['at', 'reason', 'source', 'spot', 'type'])
_S2: Final = frozenset(['audio'])
_S3: Final = frozenset(['at', 'player', 'team', 'two_point', 'type'])
_S4: Final = frozenset(['at', 'card', 'clause', 'disabled', 'equipment', 'for_periods', 'mount', 'penalty', 'player', 'removed', 'spot', 'substitute', 'team', 'type'])
_S5: Final = frozenset(['1', '10', '2', '3', '4', '5', '5a', '5b', '6', '7', '8', '9'])
_S6: Final = frozenset(['at', 'player', 'reason', 'spot', 'team', 'type'])
_S7: Final = frozenset(['at', 'team', 'type'])
_S8: Final = frozenset(['at', 'first', 'order', 'type'])
_S9: Final = frozenset(['at', 'player', 'reached_end_wall', 'result', 'team', 'type'])
_S10: Final = frozenset(['forfeit', 'goal', 'miss'])
_S11: Final = frozenset(['at', 'event', 'type'])
_S12: Final = frozenset(['at', 'in', 'out', 'team', 'type'])
_S13: Final = frozenset(['at', 'player', 'team', 'type'])
_S14: Final = frozenset(['at', 'reason', 'remaining', 'type'])
_S15: Final = frozenset(['at', 'mount', 'player', 'swap', 'team', 'type', 'umpire_consent'])
_S16: Final = frozenset(['at', 'mount', 'reason', 'team', 'type'])
_S17: Final = frozenset(['blood', 'injury', 'other', 'runaway', 'vice'])


def clean_bowl_in(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    else:
        if type(v) is float:
            x0f: float = v
            if not 0.0 <= x0f <= 1000000000.0:
                return False
        elif type(v) is int:
            x0i: int = v
            if not 0 <= x0i <= 1000000000:
                return False
        else:
            return False
        n += 1
    return len(ev) == n or _S0.issuperset(ev)


def clean_whistle(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    else:
        if type(v) is float:
            x0f: float = v
            if not 0.0 <= x0f <= 1000000000.0:
                return False
        elif type(v) is int:
            x0i: int = v
            if not 0 <= x0i <= 1000000000:
                return False
        else:
            return False
        n += 1
    v = ev.get('reason')
    if v is None:
        pass
    else:
        if type(v) is not str:
            return False
        s1: str = v
        if not 0 <= len(s1) <= 200 or not s1.isascii():
            return False
        n += 1
    v = ev.get('spot')
    if v is None:
        pass
    else:
        if type(v) is not list:
            return False
        l2: list[Any] = v
        if len(l2) != 2:
            return False
        p2 = l2[0]
        if type(p2) is float:
            p2f: float = p2
            if not 0.0 <= p2f <= 100.0:
                return False
        elif type(p2) is int:
            p2i: int = p2
            if not 0 <= p2i <= 100:
                return False
        else:
            return False
        q2 = l2[1]
        if type(q2) is float:
            q2f: float = q2
            if not 0.0 <= q2f <= 50.0:
                return False
        elif type(q2) is int:
            q2i: int = q2
            if not 0 <= q2i <= 50:
                return False
        else:
            return False
        n += 1
    v = ev.get('source')
    if v is None:
        pass
    else:
        if type(v) is not str:
            return False
        s3: str = v
        if s3 not in _S2:
            return False
        n += 1
    return len(ev) == n or _S1.issuperset(ev)


def clean_goal(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    else:
        if type(v) is float:
            x0f: float = v
            if not 0.0 <= x0f <= 1000000000.0:
                return False
        elif type(v) is int:
            x0i: int = v
            if not 0 <= x0i <= 1000000000:
                return False
        else:
            return False
        n += 1
    v = ev.get('team')
    if v is None:
        return False
    else:
        if type(v) is not str:
            return False
        s1: str = v
        if not 1 <= len(s1) <= 16 or not s1.isascii():
            return False
        n += 1
    v = ev.get('player')
    if v is None:
        pass
    else:
        if type(v) is not int:
            return False
        i2: int = v
        if not 1 <= i2 <= 99:
            return False
        n += 1
    v = ev.get('two_point')
    if v is None:
        pass
    else:
        if type(v) is not bool:
            return False
        n += 1
    return len(ev) == n or _S3.issuperset(ev)


def clean_foul(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    else:
        if type(v) is float:
            x0f: float = v
            if not 0.0 <= x0f <= 1000000000.0:
                return False
        elif type(v) is int:
            x0i: int = v
            if not 0 <= x0i <= 1000000000:
                return False
        else:
            return False
        n += 1
    v = ev.get('team')
    if v is None:
        return False
    else:
        if type(v) is not str:
            return False
        s1: str = v
        if not 1 <= len(s1) <= 16 or not s1.isascii():
            return False
        n += 1
    v = ev.get('player')
    if v is None:
        pass
    else:
        if type(v) is not int:
            return False
        i2: int = v
        if not 1 <= i2 <= 99:
            return False
        n += 1
    v = ev.get('penalty')
    if v is None:
        return False
    else:
        if type(v) is not str:
            return False
        s3: str = v
        if s3 not in _S5:
            return False
        n += 1
    v = ev.get('clause')
    if v is None:
        pass
    else:
        if type(v) is not str:
            return False
        s4: str = v
        if not 0 <= len(s4) <= 64 or not s4.isascii():
            return False
        n += 1
    v = ev.get('card')
    if v is None:
        pass
    else:
        if type(v) is not str:
            return False
        s5: str = v
        if not 0 <= len(s5) <= 64 or not s5.isascii():
            return False
        n += 1
    v = ev.get('spot')
    if v is None:
        pass
    else:
        if type(v) is not list:
            return False
        l6: list[Any] = v
        if len(l6) != 2:
            return False
        p6 = l6[0]
        if type(p6) is float:
            p6f: float = p6
            if not 0.0 <= p6f <= 100.0:
                return False
        elif type(p6) is int:
            p6i: int = p6
            if not 0 <= p6i <= 100:
                return False
        else:
            return False
        q6 = l6[1]
        if type(q6) is float:
            q6f: float = q6
            if not 0.0 <= q6f <= 50.0:
                return False
        elif type(q6) is int:
            q6i: int = q6
            if not 0 <= q6i <= 50:
                return False
        else:
            return False
        n += 1
    v = ev.get('disabled')
    if v is None:
        pass
    else:
        if type(v) is not int:
            return False
        i7: int = v
        if not 1 <= i7 <= 99:
            return False
        n += 1
    v = ev.get('removed')
    if v is None:
        pass
    else:
        if type(v) is not int:
            return False
        i8: int = v
        if not 1 <= i8 <= 99:
            return False
        n += 1
    v = ev.get('substitute')
    if v is None:
        pass
    else:
        return False
    v = ev.get('equipment')
    if v is None:
        pass
    else:
        if type(v) is not bool:
            return False
        n += 1
    v = ev.get('mount')
    if v is None:
        pass
    else:
        if type(v) is not bool:
            return False
        n += 1
    v = ev.get('for_periods')
    if v is None:
        pass
    else:
        if type(v) is not int:
            return False
        i12: int = v
        if not 1 <= i12 <= 99:
            return False
        n += 1
    return len(ev) == n or _S4.issuperset(ev)


def clean_free_hit(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    else:
        if type(v) is float:
            x0f: float = v
            if not 0.0 <= x0f <= 1000000000.0:
                return False
        elif type(v) is int:
            x0i: int = v
            if not 0 <= x0i <= 1000000000:
                return False
        else:
            return False
        n += 1
    return len(ev) == n or _S0.issuperset(ev)


def clean_timeout(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    else:
        if type(v) is float:
            x0f: float = v
            if not 0.0 <= x0f <= 1000000000.0:
                return False
        elif type(v) is int:
            x0i: int = v
            if not 0 <= x0i <= 1000000000:
                return False
        else:
            return False
        n += 1
    v = ev.get('reason')
    if v is None:
        return False
    else:
        if type(v) is not str:
            return False
        s1: str = v
        if not 1 <= len(s1) <= 200 or not s1.isascii():
            return False
        n += 1
    v = ev.get('team')
    if v is None:
        pass
    else:
        if type(v) is not str:
            return False
        s2: str = v
        if not 1 <= len(s2) <= 16 or not s2.isascii():
            return False
        n += 1
    v = ev.get('player')
    if v is None:
        pass
    else:
        if type(v) is not int:
            return False
        i3: int = v
        if not 1 <= i3 <= 99:
            return False
        n += 1
    v = ev.get('spot')
    if v is None:
        pass
    else:
        if type(v) is not list:
            return False
        l4: list[Any] = v
        if len(l4) != 2:
            return False
        p4 = l4[0]
        if type(p4) is float:
            p4f: float = p4
            if not 0.0 <= p4f <= 100.0:
                return False
        elif type(p4) is int:
            p4i: int = p4
            if not 0 <= p4i <= 100:
                return False
        else:
            return False
        q4 = l4[1]
        if type(q4) is float:
            q4f: float = q4
            if not 0.0 <= q4f <= 50.0:
                return False
        elif type(q4) is int:
            q4i: int = q4
            if not 0 <= q4i <= 50:
                return False
        else:
            return False
        n += 1
    return len(ev) == n or _S6.issuperset(ev)


def clean_forfeit(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    else:
        if type(v) is float:
            x0f: float = v
            if not 0.0 <= x0f <= 1000000000.0:
                return False
        elif type(v) is int:
            x0i: int = v
            if not 0 <= x0i <= 1000000000:
                return False
        else:
            return False
        n += 1
    v = ev.get('team')
    if v is None:
        return False
    else:
        if type(v) is not str:
            return False
        s1: str = v
        if not 1 <= len(s1) <= 16 or not s1.isascii():
            return False
        n += 1
    return len(ev) == n or _S7.issuperset(ev)


def clean_shootout_order(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    else:
        if type(v) is float:
            x0f: float = v
            if not 0.0 <= x0f <= 1000000000.0:
                return False
        elif type(v) is int:
            x0i: int = v
            if not 0 <= x0i <= 1000000000:
                return False
        else:
            return False
        n += 1
    v = ev.get('first')
    if v is None:
        return False
    else:
        if type(v) is not str:
            return False
        s1: str = v
        if not 1 <= len(s1) <= 16 or not s1.isascii():
            return False
        n += 1
    v = ev.get('order')
    if v is None:
        return False
    else:
        return False
    return len(ev) == n or _S8.issuperset(ev)


def clean_shot(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    else:
        if type(v) is float:
            x0f: float = v
            if not 0.0 <= x0f <= 1000000000.0:
                return False
        elif type(v) is int:
            x0i: int = v
            if not 0 <= x0i <= 1000000000:
                return False
        else:
            return False
        n += 1
    v = ev.get('team')
    if v is None:
        return False
    else:
        if type(v) is not str:
            return False
        s1: str = v
        if not 1 <= len(s1) <= 16 or not s1.isascii():
            return False
        n += 1
    v = ev.get('player')
    if v is None:
        return False
    else:
        if type(v) is not int:
            return False
        i2: int = v
        if not 1 <= i2 <= 99:
            return False
        n += 1
    v = ev.get('result')
    if v is None:
        return False
    else:
        if type(v) is not str:
            return False
        s3: str = v
        if s3 not in _S10:
            return False
        n += 1
    v = ev.get('reached_end_wall')
    if v is None:
        pass
    else:
        if type(v) is not bool:
            return False
        n += 1
    return len(ev) == n or _S9.issuperset(ev)


def clean_move_to_15(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    else:
        if type(v) is float:
            x0f: float = v
            if not 0.0 <= x0f <= 1000000000.0:
                return False
        elif type(v) is int:
            x0i: int = v
            if not 0 <= x0i <= 1000000000:
                return False
        else:
            return False
        n += 1
    return len(ev) == n or _S0.issuperset(ev)


def clean_undo(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    else:
        if type(v) is float:
            x0f: float = v
            if not 0.0 <= x0f <= 1000000000.0:
                return False
        elif type(v) is int:
            x0i: int = v
            if not 0 <= x0i <= 1000000000:
                return False
        else:
            return False
        n += 1
    v = ev.get('event')
    if v is None:
        return False
    else:
        if type(v) is not int:
            return False
        i1: int = v
        if not 1 <= i1 <= 100000:
            return False
        n += 1
    return len(ev) == n or _S11.issuperset(ev)


def clean_substitute(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    else:
        if type(v) is float:
            x0f: float = v
            if not 0.0 <= x0f <= 1000000000.0:
                return False
        elif type(v) is int:
            x0i: int = v
            if not 0 <= x0i <= 1000000000:
                return False
        else:
            return False
        n += 1
    v = ev.get('team')
    if v is None:
        return False
    else:
        if type(v) is not str:
            return False
        s1: str = v
        if not 1 <= len(s1) <= 16 or not s1.isascii():
            return False
        n += 1
    v = ev.get('out')
    if v is None:
        return False
    else:
        if type(v) is not int:
            return False
        i2: int = v
        if not 1 <= i2 <= 99:
            return False
        n += 1
    v = ev.get('in')
    if v is None:
        return False
    else:
        if type(v) is not int:
            return False
        i3: int = v
        if not 1 <= i3 <= 99:
            return False
        n += 1
    return len(ev) == n or _S12.issuperset(ev)


def clean_designate(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    else:
        if type(v) is float:
            x0f: float = v
            if not 0.0 <= x0f <= 1000000000.0:
                return False
        elif type(v) is int:
            x0i: int = v
            if not 0 <= x0i <= 1000000000:
                return False
        else:
            return False
        n += 1
    v = ev.get('team')
    if v is None:
        return False
    else:
        if type(v) is not str:
            return False
        s1: str = v
        if not 1 <= len(s1) <= 16 or not s1.isascii():
            return False
        n += 1
    v = ev.get('player')
    if v is None:
        return False
    else:
        if type(v) is not int:
            return False
        i2: int = v
        if not 1 <= i2 <= 99:
            return False
        n += 1
    return len(ev) == n or _S13.issuperset(ev)


def clean_return(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    else:
        if type(v) is float:
            x0f: float = v
            if not 0.0 <= x0f <= 1000000000.0:
                return False
        elif type(v) is int:
            x0i: int = v
            if not 0 <= x0i <= 1000000000:
                return False
        else:
            return False
        n += 1
    v = ev.get('team')
    if v is None:
        return False
    else:
        if type(v) is not str:
            return False
        s1: str = v
        if not 1 <= len(s1) <= 16 or not s1.isascii():
            return False
        n += 1
    v = ev.get('player')
    if v is None:
        return False
    else:
        if type(v) is not int:
            return False
        i2: int = v
        if not 1 <= i2 <= 99:
            return False
        n += 1
    return len(ev) == n or _S13.issuperset(ev)


def clean_clock(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    else:
        if type(v) is float:
            x0f: float = v
            if not 0.0 <= x0f <= 1000000000.0:
                return False
        elif type(v) is int:
            x0i: int = v
            if not 0 <= x0i <= 1000000000:
                return False
        else:
            return False
        n += 1
    v = ev.get('remaining')
    if v is None:
        return False
    else:
        if type(v) is float:
            x1f: float = v
            if not 0.0 <= x1f <= 3600.0:
                return False
        elif type(v) is int:
            x1i: int = v
            if not 0 <= x1i <= 3600:
                return False
        else:
            return False
        n += 1
    v = ev.get('reason')
    if v is None:
        return False
    else:
        if type(v) is not str:
            return False
        s2: str = v
        if not 1 <= len(s2) <= 200 or not s2.isascii():
            return False
        n += 1
    return len(ev) == n or _S14.issuperset(ev)


def clean_mount(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    else:
        if type(v) is float:
            x0f: float = v
            if not 0.0 <= x0f <= 1000000000.0:
                return False
        elif type(v) is int:
            x0i: int = v
            if not 0 <= x0i <= 1000000000:
                return False
        else:
            return False
        n += 1
    v = ev.get('team')
    if v is None:
        return False
    else:
        if type(v) is not str:
            return False
        s1: str = v
        if not 1 <= len(s1) <= 16 or not s1.isascii():
            return False
        n += 1
    v = ev.get('player')
    if v is None:
        return False
    else:
        if type(v) is not int:
            return False
        i2: int = v
        if not 1 <= i2 <= 99:
            return False
        n += 1
    v = ev.get('mount')
    if v is None:
        return False
    else:
        return False
    v = ev.get('umpire_consent')
    if v is None:
        pass
    else:
        if type(v) is not bool:
            return False
        n += 1
    v = ev.get('swap')
    if v is None:
        pass
    else:
        if type(v) is not bool:
            return False
        n += 1
    return len(ev) == n or _S15.issuperset(ev)


def clean_mount_out(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    else:
        if type(v) is float:
            x0f: float = v
            if not 0.0 <= x0f <= 1000000000.0:
                return False
        elif type(v) is int:
            x0i: int = v
            if not 0 <= x0i <= 1000000000:
                return False
        else:
            return False
        n += 1
    v = ev.get('team')
    if v is None:
        return False
    else:
        if type(v) is not str:
            return False
        s1: str = v
        if not 1 <= len(s1) <= 16 or not s1.isascii():
            return False
        n += 1
    v = ev.get('mount')
    if v is None:
        return False
    else:
        return False
    v = ev.get('reason')
    if v is None:
        return False
    else:
        if type(v) is not str:
            return False
        s3: str = v
        if s3 not in _S17:
            return False
        n += 1
    return len(ev) == n or _S16.issuperset(ev)


#: the quick yes of each event type
CLEAN: Final[dict[str, Callable[[dict[str, Any]], bool]]] = {
    'bowl_in': clean_bowl_in,
    'whistle': clean_whistle,
    'goal': clean_goal,
    'foul': clean_foul,
    'free_hit': clean_free_hit,
    'timeout': clean_timeout,
    'forfeit': clean_forfeit,
    'shootout_order': clean_shootout_order,
    'shot': clean_shot,
    'move_to_15': clean_move_to_15,
    'undo': clean_undo,
    'substitute': clean_substitute,
    'designate': clean_designate,
    'return': clean_return,
    'clock': clean_clock,
    'mount': clean_mount,
    'mount_out': clean_mount_out,
}


def first_unclean(events: list[Any]) -> int:
    """The position (0-based) of the first event without a quick yes, or ``len(events)``."""
    k = 0
    for ev in events:
        if type(ev) is not dict:
            return k
        typ = ev.get("type")
        if type(typ) is not str:
            return k
        t: str = typ
        if t == 'bowl_in':
            if not clean_bowl_in(ev):
                return k
        elif t == 'whistle':
            if not clean_whistle(ev):
                return k
        elif t == 'goal':
            if not clean_goal(ev):
                return k
        elif t == 'foul':
            if not clean_foul(ev):
                return k
        elif t == 'free_hit':
            if not clean_free_hit(ev):
                return k
        elif t == 'timeout':
            if not clean_timeout(ev):
                return k
        elif t == 'forfeit':
            if not clean_forfeit(ev):
                return k
        elif t == 'shootout_order':
            if not clean_shootout_order(ev):
                return k
        elif t == 'shot':
            if not clean_shot(ev):
                return k
        elif t == 'move_to_15':
            if not clean_move_to_15(ev):
                return k
        elif t == 'undo':
            if not clean_undo(ev):
                return k
        elif t == 'substitute':
            if not clean_substitute(ev):
                return k
        elif t == 'designate':
            if not clean_designate(ev):
                return k
        elif t == 'return':
            if not clean_return(ev):
                return k
        elif t == 'clock':
            if not clean_clock(ev):
                return k
        elif t == 'mount':
            if not clean_mount(ev):
                return k
        elif t == 'mount_out':
            if not clean_mount_out(ev):
                return k
        else:
            return k
        k += 1
    return k
