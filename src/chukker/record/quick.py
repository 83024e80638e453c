"""The quick yes of each event type, generated from
``chukker.record.definitions.EVENTS`` by ``quick_source()``: do not edit. After
changing the tables: ``python -c 'from chukker.record.definitions import *;
print(quick_source(), end="")' > src/chukker/record/quick.py``.
``tests/record/test_quick.py`` fails while it is out of date.
"""

# ruff: noqa: E501, SIM114
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

INF: Final = float("inf")
_S0: Final = frozenset(['at', 'type'])
_S1: Final = frozenset(['at', 'reason', 'spot', 'type'])
_S2: Final = frozenset(['at', 'player', 'team', 'two_point', 'type'])
_S3: Final = frozenset(['at', 'card', 'clause', 'disabled', 'equipment', 'for_periods', 'mount', 'penalty', 'player', 'removed', 'spot', 'substitute', 'team', 'type'])
_S4: Final = frozenset(['1', '10', '2', '3', '4', '5', '5a', '5b', '6', '7', '8', '9'])
_S5: Final = frozenset(['at', 'player', 'reason', 'spot', 'team', 'type'])
_S6: Final = frozenset(['at', 'team', 'type'])
_S7: Final = frozenset(['at', 'first', 'order', 'type'])
_S8: Final = frozenset(['at', 'player', 'reached_end_wall', 'result', 'team', 'type'])
_S9: Final = frozenset(['forfeit', 'goal', 'miss'])
_S10: Final = frozenset(['at', 'event', 'type'])
_S11: Final = frozenset(['at', 'in', 'out', 'team', 'type'])
_S12: Final = frozenset(['at', 'player', 'team', 'type'])
_S13: Final = frozenset(['at', 'reason', 'remaining', 'type'])
_S14: Final = frozenset(['at', 'mount', 'player', 'team', 'type', 'umpire_consent'])
_S15: Final = frozenset(['at', 'mount', 'reason', 'team', 'type'])
_S16: Final = frozenset(['blood', 'injury', 'other', 'runaway', 'vice'])


def clean_bowl_in(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    elif (type(v) is not float and type(v) is not int) or not 0 <= v <= 1000000000:
        return False
    else:
        n += 1
    return len(ev) == n or _S0.issuperset(ev)


def clean_whistle(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    elif (type(v) is not float and type(v) is not int) or not 0 <= v <= 1000000000:
        return False
    else:
        n += 1
    v = ev.get('reason')
    if v is None:
        pass
    elif type(v) is not str or not 0 <= len(v) <= 200 or not v.isascii():
        return False
    else:
        n += 1
    v = ev.get('spot')
    if v is None:
        pass
    elif type(v) is not list or len(v) != 2 or (type(v[0]) is not int and type(v[0]) is not float) or (type(v[1]) is not int and type(v[1]) is not float) or not 0 <= v[0] <= 100 or not 0 <= v[1] <= 50:
        return False
    else:
        n += 1
    return len(ev) == n or _S1.issuperset(ev)


def clean_goal(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    elif (type(v) is not float and type(v) is not int) or not 0 <= v <= 1000000000:
        return False
    else:
        n += 1
    v = ev.get('team')
    if v is None:
        return False
    elif type(v) is not str or not 1 <= len(v) <= 16 or not v.isascii():
        return False
    else:
        n += 1
    v = ev.get('player')
    if v is None:
        pass
    elif type(v) is not int or not 1 <= v <= 99:
        return False
    else:
        n += 1
    v = ev.get('two_point')
    if v is None:
        pass
    elif type(v) is not bool:
        return False
    else:
        n += 1
    return len(ev) == n or _S2.issuperset(ev)


def clean_foul(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    elif (type(v) is not float and type(v) is not int) or not 0 <= v <= 1000000000:
        return False
    else:
        n += 1
    v = ev.get('team')
    if v is None:
        return False
    elif type(v) is not str or not 1 <= len(v) <= 16 or not v.isascii():
        return False
    else:
        n += 1
    v = ev.get('player')
    if v is None:
        pass
    elif type(v) is not int or not 1 <= v <= 99:
        return False
    else:
        n += 1
    v = ev.get('penalty')
    if v is None:
        return False
    elif type(v) is not str or v not in _S4:
        return False
    else:
        n += 1
    v = ev.get('clause')
    if v is None:
        pass
    elif type(v) is not str or not 0 <= len(v) <= 64 or not v.isascii():
        return False
    else:
        n += 1
    v = ev.get('card')
    if v is None:
        pass
    elif type(v) is not str or not 0 <= len(v) <= 64 or not v.isascii():
        return False
    else:
        n += 1
    v = ev.get('spot')
    if v is None:
        pass
    elif type(v) is not list or len(v) != 2 or (type(v[0]) is not int and type(v[0]) is not float) or (type(v[1]) is not int and type(v[1]) is not float) or not 0 <= v[0] <= 100 or not 0 <= v[1] <= 50:
        return False
    else:
        n += 1
    v = ev.get('disabled')
    if v is None:
        pass
    elif type(v) is not int or not 1 <= v <= 99:
        return False
    else:
        n += 1
    v = ev.get('removed')
    if v is None:
        pass
    elif type(v) is not int or not 1 <= v <= 99:
        return False
    else:
        n += 1
    v = ev.get('substitute')
    if v is None:
        pass
    elif True:
        return False
    else:
        n += 1
    v = ev.get('equipment')
    if v is None:
        pass
    elif type(v) is not bool:
        return False
    else:
        n += 1
    v = ev.get('mount')
    if v is None:
        pass
    elif type(v) is not bool:
        return False
    else:
        n += 1
    v = ev.get('for_periods')
    if v is None:
        pass
    elif type(v) is not int or not 1 <= v <= 99:
        return False
    else:
        n += 1
    return len(ev) == n or _S3.issuperset(ev)


def clean_free_hit(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    elif (type(v) is not float and type(v) is not int) or not 0 <= v <= 1000000000:
        return False
    else:
        n += 1
    return len(ev) == n or _S0.issuperset(ev)


def clean_timeout(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    elif (type(v) is not float and type(v) is not int) or not 0 <= v <= 1000000000:
        return False
    else:
        n += 1
    v = ev.get('reason')
    if v is None:
        return False
    elif type(v) is not str or not 1 <= len(v) <= 200 or not v.isascii():
        return False
    else:
        n += 1
    v = ev.get('team')
    if v is None:
        pass
    elif type(v) is not str or not 1 <= len(v) <= 16 or not v.isascii():
        return False
    else:
        n += 1
    v = ev.get('player')
    if v is None:
        pass
    elif type(v) is not int or not 1 <= v <= 99:
        return False
    else:
        n += 1
    v = ev.get('spot')
    if v is None:
        pass
    elif type(v) is not list or len(v) != 2 or (type(v[0]) is not int and type(v[0]) is not float) or (type(v[1]) is not int and type(v[1]) is not float) or not 0 <= v[0] <= 100 or not 0 <= v[1] <= 50:
        return False
    else:
        n += 1
    return len(ev) == n or _S5.issuperset(ev)


def clean_forfeit(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    elif (type(v) is not float and type(v) is not int) or not 0 <= v <= 1000000000:
        return False
    else:
        n += 1
    v = ev.get('team')
    if v is None:
        return False
    elif type(v) is not str or not 1 <= len(v) <= 16 or not v.isascii():
        return False
    else:
        n += 1
    return len(ev) == n or _S6.issuperset(ev)


def clean_shootout_order(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    elif (type(v) is not float and type(v) is not int) or not 0 <= v <= 1000000000:
        return False
    else:
        n += 1
    v = ev.get('first')
    if v is None:
        return False
    elif type(v) is not str or not 1 <= len(v) <= 16 or not v.isascii():
        return False
    else:
        n += 1
    v = ev.get('order')
    if v is None:
        return False
    elif True:
        return False
    else:
        n += 1
    return len(ev) == n or _S7.issuperset(ev)


def clean_shot(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    elif (type(v) is not float and type(v) is not int) or not 0 <= v <= 1000000000:
        return False
    else:
        n += 1
    v = ev.get('team')
    if v is None:
        return False
    elif type(v) is not str or not 1 <= len(v) <= 16 or not v.isascii():
        return False
    else:
        n += 1
    v = ev.get('player')
    if v is None:
        return False
    elif type(v) is not int or not 1 <= v <= 99:
        return False
    else:
        n += 1
    v = ev.get('result')
    if v is None:
        return False
    elif type(v) is not str or v not in _S9:
        return False
    else:
        n += 1
    v = ev.get('reached_end_wall')
    if v is None:
        pass
    elif type(v) is not bool:
        return False
    else:
        n += 1
    return len(ev) == n or _S8.issuperset(ev)


def clean_move_to_15(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    elif (type(v) is not float and type(v) is not int) or not 0 <= v <= 1000000000:
        return False
    else:
        n += 1
    return len(ev) == n or _S0.issuperset(ev)


def clean_undo(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    elif (type(v) is not float and type(v) is not int) or not 0 <= v <= 1000000000:
        return False
    else:
        n += 1
    v = ev.get('event')
    if v is None:
        return False
    elif type(v) is not int or not 1 <= v <= 100000:
        return False
    else:
        n += 1
    return len(ev) == n or _S10.issuperset(ev)


def clean_substitute(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    elif (type(v) is not float and type(v) is not int) or not 0 <= v <= 1000000000:
        return False
    else:
        n += 1
    v = ev.get('team')
    if v is None:
        return False
    elif type(v) is not str or not 1 <= len(v) <= 16 or not v.isascii():
        return False
    else:
        n += 1
    v = ev.get('out')
    if v is None:
        return False
    elif type(v) is not int or not 1 <= v <= 99:
        return False
    else:
        n += 1
    v = ev.get('in')
    if v is None:
        return False
    elif type(v) is not int or not 1 <= v <= 99:
        return False
    else:
        n += 1
    return len(ev) == n or _S11.issuperset(ev)


def clean_designate(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    elif (type(v) is not float and type(v) is not int) or not 0 <= v <= 1000000000:
        return False
    else:
        n += 1
    v = ev.get('team')
    if v is None:
        return False
    elif type(v) is not str or not 1 <= len(v) <= 16 or not v.isascii():
        return False
    else:
        n += 1
    v = ev.get('player')
    if v is None:
        return False
    elif type(v) is not int or not 1 <= v <= 99:
        return False
    else:
        n += 1
    return len(ev) == n or _S12.issuperset(ev)


def clean_return(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    elif (type(v) is not float and type(v) is not int) or not 0 <= v <= 1000000000:
        return False
    else:
        n += 1
    v = ev.get('team')
    if v is None:
        return False
    elif type(v) is not str or not 1 <= len(v) <= 16 or not v.isascii():
        return False
    else:
        n += 1
    v = ev.get('player')
    if v is None:
        return False
    elif type(v) is not int or not 1 <= v <= 99:
        return False
    else:
        n += 1
    return len(ev) == n or _S12.issuperset(ev)


def clean_clock(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    elif (type(v) is not float and type(v) is not int) or not 0 <= v <= 1000000000:
        return False
    else:
        n += 1
    v = ev.get('remaining')
    if v is None:
        return False
    elif (type(v) is not float and type(v) is not int) or not 0 <= v <= 3600:
        return False
    else:
        n += 1
    v = ev.get('reason')
    if v is None:
        return False
    elif type(v) is not str or not 1 <= len(v) <= 200 or not v.isascii():
        return False
    else:
        n += 1
    return len(ev) == n or _S13.issuperset(ev)


def clean_mount(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    elif (type(v) is not float and type(v) is not int) or not 0 <= v <= 1000000000:
        return False
    else:
        n += 1
    v = ev.get('team')
    if v is None:
        return False
    elif type(v) is not str or not 1 <= len(v) <= 16 or not v.isascii():
        return False
    else:
        n += 1
    v = ev.get('player')
    if v is None:
        return False
    elif type(v) is not int or not 1 <= v <= 99:
        return False
    else:
        n += 1
    v = ev.get('mount')
    if v is None:
        return False
    elif True:
        return False
    else:
        n += 1
    v = ev.get('umpire_consent')
    if v is None:
        pass
    elif type(v) is not bool:
        return False
    else:
        n += 1
    return len(ev) == n or _S14.issuperset(ev)


def clean_mount_out(ev: dict[str, Any]) -> bool:
    n = 1
    v = ev.get('at')
    if v is None:
        return False
    elif (type(v) is not float and type(v) is not int) or not 0 <= v <= 1000000000:
        return False
    else:
        n += 1
    v = ev.get('team')
    if v is None:
        return False
    elif type(v) is not str or not 1 <= len(v) <= 16 or not v.isascii():
        return False
    else:
        n += 1
    v = ev.get('mount')
    if v is None:
        return False
    elif True:
        return False
    else:
        n += 1
    v = ev.get('reason')
    if v is None:
        return False
    elif type(v) is not str or v not in _S16:
        return False
    else:
        n += 1
    return len(ev) == n or _S15.issuperset(ev)


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
    clean = CLEAN
    k = 0
    for ev in events:
        if type(ev) is not dict:
            return k
        typ = ev.get("type")
        if type(typ) is not str:
            return k
        fn = clean.get(typ)
        if fn is None or not fn(ev):
            return k
        k += 1
    return k
