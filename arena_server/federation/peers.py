"""Keys of other labs, and first contact with a peer: what the aggregator and a countersigning lab
both need before they believe any record.

A lab's key is trusted either from a file its operator was given (`--trust LAB=FILE`, `federation
trust`), or pinned on first contact with a peer that publishes it (trust on first use). From then on a
peer that publishes another key for that lab, or another lab name than it had, is refused as a whole.
"""

from __future__ import annotations

from arena.v1 import federation_pb2 as fpb

from .keys import ALGORITHM, PublicLabKey, key_id, validate_lab_name
from .state import FederationState


class PeerRefused(Exception):
    """Records of this peer are not read (its key or lab changed, or it publishes no usable key)."""


def trusted_keys(state: FederationState) -> dict[str, PublicLabKey]:
    return {row["lab"]: PublicLabKey(row["lab"], row["public_key"]) for row in state.lab_keys()}


def trust(state: FederationState, key: PublicLabKey, source: str) -> None:
    """Trusts `key` for its lab. ValueError when another key is already trusted for it."""
    known = state.lab_key(key.lab)
    if known is None:
        state.pin_lab_key(key.lab, key.public_key, source)
    elif known["public_key"] != key.public_key:
        raise ValueError(f"lab {key.lab}: {source} gives key {key.key_id}, but key "
                         f"{PublicLabKey(key.lab, known['public_key']).key_id} is already trusted for it "
                         f"({known['source']})")


def contact(state: FederationState, address: str, stub, metadata, table: str = "peers") -> PublicLabKey:
    """The peer's lab and key (GetLabInfo), checked against what is pinned, and pinned now on first
    contact; the peer is noted in `table` (the aggregator's peers, or a countersigner's)."""
    info = stub.GetLabInfo(fpb.GetLabInfoRequest(), metadata=metadata)
    try:
        validate_lab_name(info.lab)
    except ValueError as e:
        raise PeerRefused(str(e)) from None
    if info.algorithm != ALGORITHM or len(info.public_key) != 32 or info.key_id != key_id(info.public_key):
        raise PeerRefused(f"lab {info.lab} publishes an unusable key (algorithm {info.algorithm!r}, "
                          f"{len(info.public_key)} bytes, key id {info.key_id!r})")
    key = PublicLabKey(info.lab, info.public_key)
    peer = state.peer(address, table)
    if peer is not None and peer["lab"] != info.lab:
        raise PeerRefused(f"the peer was lab {peer['lab']} and now says it is lab {info.lab}")
    known = state.lab_key(info.lab)
    if known is not None and known["public_key"] != info.public_key:
        raise PeerRefused(f"it publishes key {key.key_id} for lab {info.lab}, but the key trusted for "
                          f"{info.lab} is {PublicLabKey(info.lab, known['public_key']).key_id} ({known['source']})")
    with state.transaction():
        if known is None:
            state.pin_lab_key(info.lab, info.public_key, f"pinned on first contact with {address}")
        if peer is None:
            state.add_peer(address, info.lab, table)
    return key
