"""The feed's queue: bounded, states coalesced, nothing put ever waits."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from chukker.feeds.outbox import Kind, Message, Outbox

ops = st.lists(st.tuples(st.sampled_from(["event", "horn", "relay", "state"]),
                         st.integers(0, 4)), max_size=200)


@given(ops, st.integers(1, 20))
def test_outbox_keeps_the_newest_within_its_bound_and_the_latest_state_per_topic(
        script: list[tuple[str, int]], limit: int) -> None:
    box = Outbox(limit=limit)
    sent: dict[str, list[int]] = {"stream": [], "relay": []}
    latest: dict[str, int] = {}
    for i, (kind, topic) in enumerate(script):
        if kind == "state":
            box.put_state(Message(Kind.STATE, f"s/{topic}", str(i).encode(), retain=True))
            latest[f"s/{topic}"] = i
        else:
            box.put(Message(Kind(kind), f"{kind}/{topic}", str(i).encode()))
            sent["relay" if kind == "relay" else "stream"].append(i)
        assert len(box) <= 2 * limit + 5
    out = [m for m in iter(box.pop, None)]
    relays = [int(m.body()) for m in out if m.kind is Kind.RELAY]
    stream = [int(m.body()) for m in out if m.kind in (Kind.EVENT, Kind.HORN)]
    states = {m.topic: int(m.body()) for m in out if m.kind is Kind.STATE}
    assert relays == sent["relay"][-limit:]  # the newest, in order
    assert stream == sent["stream"][-limit:]
    assert states == latest  # one per topic: the latest
    n = len(sent["relay"]) + len(sent["stream"])
    assert box.dropped.total() == n - len(relays) - len(stream)
    # relay commands first, then horns and events, then states
    rank = {Kind.RELAY: 0, Kind.EVENT: 1, Kind.HORN: 1, Kind.STATE: 2}
    assert [rank[m.kind] for m in out] == sorted(rank[m.kind] for m in out)

def test_outbox_queues_every_retained_state_again_after_a_reconnect() -> None:
    box = Outbox()
    for t in ("a", "b", "c"):
        box.put_state(Message(Kind.STATE, t, t.encode(), retain=True))
    assert len(list(iter(box.pop, None))) == 3
    assert box.republish() == 3
    assert sorted(m.topic for m in iter(box.pop, None)) == ["a", "b", "c"]


def test_outbox_a_failed_state_goes_back_only_if_nothing_newer_came() -> None:
    box = Outbox()
    old = Message(Kind.STATE, "t", b"old", retain=True)
    box.put_state(old)
    assert box.pop() is old
    box.put_state(Message(Kind.STATE, "t", b"new", retain=True))
    box.put_state(old, again=True)
    assert [m.payload for m in iter(box.pop, None)] == [b"new"]


def test_outbox_remembers_only_the_newest_retained_topics() -> None:
    box = Outbox(retained_limit=2)
    for t in ("a", "b", "c"):
        box.put_state(Message(Kind.STATE, t, b"x", retain=True))
    assert list(box.retained) == ["b", "c"]
