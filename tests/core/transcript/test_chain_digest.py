"""The chain test run on decoded records (core/transcript/decode.ChainDigest): a full scan
(which also shares type and role strings) and a chain-only scan judge a chain alike."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sidtui.core.transcript.decode import ChainDigest
from sidtui.core.transcript.structs import MessageS, RecordS


def _records(links: list[tuple[str | None, str | None]]) -> list[RecordS]:
    return [
        RecordS(type="user_message", uuid=u, parentUuid=p, message=MessageS(role="user"))
        for u, p in links
    ]


def _digest(recs: list[RecordS], full: bool, chunk: int) -> ChainDigest:
    d = ChainDigest()
    for k in range(0, len(recs), chunk):
        d.feed(recs[k : k + chunk], full)
    return d


ids = st.sampled_from(["a", "b", "c", "d", None])


@given(st.lists(st.tuples(ids, ids), max_size=12), st.integers(1, 5))
def test_full_and_chain_only_scans_agree(links, chunk):
    full = _digest(_records(links), True, chunk)
    chain = _digest(_records(links), False, chunk)
    assert (full.is_whole, full.count, full.prev) == (chain.is_whole, chain.count, chain.prev)


def test_a_linear_chain_is_whole_and_a_full_scan_shares_strings():
    links = [("u0", None), ("u1", "u0"), ("u2", "u1")]
    recs = _records(links)
    # strings built at run time: equal, not the same objects
    for r in recs:
        r.type = "".join(["user_", "message"])
        assert r.message is not None
        r.message.role = "".join(["us", "er"])
    d = _digest(recs, True, 2)
    assert d.is_whole
    assert recs[0].type is recs[2].type
    assert recs[0].message is not None and recs[2].message is not None
    assert recs[0].message.role is recs[2].message.role
    assert recs[1].parentUuid is recs[0].uuid  # the parent is the very uuid string
    assert not _digest(_records([("u0", None), ("u1", None)]), True, 5).is_whole
    assert not _digest([], True, 1).is_whole
