"""Work that comes in crowds goes on in turns: ``chukker.live.fanout.Turns``."""

from __future__ import annotations

import asyncio
from collections import Counter

from chukker.live.fanout import Turns


def test_turns_let_at_most_per_turn_waiters_go_on_per_loop_iteration() -> None:
    """A crowd of waiters (streams ending together) goes on a group per loop iteration,
    in order, so the loop's timers (a horn falling due) run between two groups."""

    async def crowd() -> tuple[list[int], Counter[int]]:
        loop = asyncio.get_running_loop()
        tick = 0
        running = True

        def ticker() -> None:  # counts the loop's iterations
            nonlocal tick
            tick += 1
            if running:
                loop.call_soon(ticker)

        loop.call_soon(ticker)
        turns = Turns(3)
        order: list[int] = []
        at: Counter[int] = Counter()

        async def one(k: int) -> None:
            await turns.wait()
            order.append(k)
            at[tick] += 1

        await asyncio.gather(*(one(k) for k in range(10)))
        running = False
        return order, at

    order, at = asyncio.run(crowd())
    assert order == list(range(10))
    assert max(at.values()) <= 3 and sum(at.values()) == 10
    assert len(at) >= 4


def test_turns_a_cancelled_waiter_takes_no_turn() -> None:
    async def crowd() -> list[int]:
        turns = Turns(1)
        order: list[int] = []

        async def one(k: int) -> None:
            await turns.wait()
            order.append(k)

        tasks = [asyncio.ensure_future(one(k)) for k in range(4)]
        await asyncio.sleep(0)
        tasks[1].cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        assert not turns.scheduled and not turns.waiting
        return order

    assert asyncio.run(crowd()) == [0, 2, 3]
