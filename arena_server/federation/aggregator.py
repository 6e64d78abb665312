"""The aggregator: pulls signed records from peers, believes only what it can check, and rates the union.

For each peer, in the order given: GetLabInfo, whose lab name and key are pinned on first contact (or
must equal the key given with --trust); then ListRecords from the peer's cursor, page by page. Each
record is checked in this order, and the first failure is its rejection reason (records.REASONS):
  decodes, known format -> the refereeing lab's key is known -> its signature verifies -> canonical ->
  not already accepted (same bytes: duplicate; other bytes for the same lab and match id: conflict) ->
  every seat's agent belongs to the referee's lab or to a lab that countersigned -> the game and its
  rules version are this server's -> replay (parameters, chance from the seed, legal moves, result) ->
  the optional policies (cross-lab matches only; countersigned records only).
A record that passes is imported into the aggregate store (importer) and noted as accepted, with the
peer it came from and its countersigners. A page's notes and the peer's new cursor are committed
together, after the page's matches are in the store, so a run stopped at any point resumes from the
cursor and counts nothing twice (a match found already in the store is noted, not imported again).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import grpc

from arena.v1 import federation_pb2 as fpb
from arena.v1 import federation_pb2_grpc

from ..ratings import BTOptions, Leaderboard, LeaderboardQuery, compute_leaderboard
from ..store import MatchRecord, Store
from .importer import import_record
from .keys import ALGORITHM, PublicLabKey, key_id, validate_lab_name
from .records import RecordRejected, countersigners, decode_body, digest, lab_of, referee_signature, require_canonical
from .replay import replay
from .state import FederationState

POLICIES = {
    "cross-lab": "count only matches whose seats belong to two labs or more",
    "countersigned": "count only records countersigned by another lab",
}


class PeerRefused(Exception):
    """The aggregator will not take records from a peer (its key or lab changed, or it is not one)."""


@dataclass
class PeerReport:
    address: str
    lab: str = ""
    key_id: str = ""
    fetched: int = 0
    accepted: int = 0
    rejected: Counter = field(default_factory=Counter)
    error: str = ""          # why the peer was refused or could not be read to the end

    def to_json(self) -> dict:
        return {"address": self.address, "lab": self.lab, "key_id": self.key_id, "fetched": self.fetched,
                "accepted": self.accepted, "rejected": dict(self.rejected), "error": self.error}


class Aggregator:
    def __init__(self, store: Store, state: FederationState, *, policies: tuple[str, ...] = ()):
        unknown = set(policies) - set(POLICIES)
        if unknown:
            raise ValueError(f"unknown policies {', '.join(sorted(unknown))} (known: {', '.join(POLICIES)})")
        self.store = store
        self.state = state
        self.policies = policies

    # ---- keys -----------------------------------------------------------------------------------------
    def keys(self) -> dict[str, PublicLabKey]:
        return {row["lab"]: PublicLabKey(row["lab"], row["public_key"]) for row in self.state.lab_keys()}

    def trust(self, key: PublicLabKey, source: str) -> None:
        """Trusts `key` for its lab (--trust). ValueError when another key is already trusted for it."""
        known = self.state.lab_key(key.lab)
        if known is None:
            self.state.pin_lab_key(key.lab, key.public_key, source)
        elif known["public_key"] != key.public_key:
            raise ValueError(f"lab {key.lab}: {source} gives key {key.key_id}, but key "
                             f"{PublicLabKey(key.lab, known['public_key']).key_id} is already trusted for it "
                             f"({known['source']})")

    def contact(self, address: str, stub, metadata) -> PublicLabKey:
        """The peer's lab and key, checked against what is pinned (pinned now on first contact)."""
        info = stub.GetLabInfo(fpb.GetLabInfoRequest(), metadata=metadata)
        try:
            validate_lab_name(info.lab)
        except ValueError as e:
            raise PeerRefused(str(e)) from None
        if info.algorithm != ALGORITHM or len(info.public_key) != 32 or info.key_id != key_id(info.public_key):
            raise PeerRefused(f"lab {info.lab} publishes an unusable key (algorithm {info.algorithm!r}, "
                              f"{len(info.public_key)} bytes, key id {info.key_id!r})")
        key = PublicLabKey(info.lab, info.public_key)
        peer = self.state.peer(address)
        if peer is not None and peer["lab"] != info.lab:
            raise PeerRefused(f"the peer was lab {peer['lab']} and now says it is lab {info.lab}")
        known = self.state.lab_key(info.lab)
        if known is not None and known["public_key"] != info.public_key:
            raise PeerRefused(f"it publishes key {key.key_id} for lab {info.lab}, but the key trusted for "
                              f"{info.lab} is {PublicLabKey(info.lab, known['public_key']).key_id} ({known['source']})")
        with self.state.transaction():
            if known is None:
                self.state.pin_lab_key(info.lab, info.public_key, f"pinned on first contact with {address}")
            if peer is None:
                self.state.add_peer(address, info.lab)
        return key

    # ---- pulling ----------------------------------------------------------------------------------------
    def pull(self, address: str, stub: federation_pb2_grpc.FederationServiceStub, metadata, *, page_size: int = 100,
             max_records: int | None = None) -> PeerReport:
        """Everything new from one peer (or `max_records` of it); never raises for the peer's faults."""
        report = PeerReport(address)
        try:
            key = self.contact(address, stub, metadata)
            report.lab, report.key_id = key.lab, key.key_id
            while max_records is None or report.fetched < max_records:
                size = page_size if max_records is None else min(page_size, max_records - report.fetched)
                cursor = self.state.peer(address)["cursor"]
                page = stub.ListRecords(fpb.ListRecordsRequest(cursor=cursor, page_size=size), metadata=metadata)
                if not page.records:
                    break
                with self.state.transaction():
                    for record in page.records:
                        report.fetched += 1
                        reason = self.consider(address, record)
                        if reason:
                            report.rejected[reason] += 1
                        else:
                            report.accepted += 1
                    self.state.set_cursor(address, page.next_cursor)
                if len(page.records) < size or page.next_cursor == cursor:
                    break
        except PeerRefused as e:
            report.error = f"refused: {e}"
        except grpc.RpcError as e:
            report.error = f"{e.code().name}: {e.details()}"
        return report

    def consider(self, peer: str, record: fpb.SignedMatchRecord) -> str:
        """Checks one record and imports it; returns "" when accepted, else the rejection reason (noted)."""
        lab = match_id = ""
        record_digest = digest(record.body)
        try:
            body = decode_body(record)
            lab, match_id = body.lab, body.match_id
            keys = self.keys()
            if lab not in keys:
                raise RecordRejected("unknown_lab", f"no key is known for lab {lab!r}")
            referee_signature(record, body, keys[lab])
            require_canonical(record, body)
            prior = self.state.accepted(lab, match_id)
            if prior is not None:
                if prior.digest == record_digest:
                    raise RecordRejected("duplicate", f"{lab}/{match_id} was accepted before (from {prior.peer})")
                raise RecordRejected("conflict", f"{lab}/{match_id} was accepted before with other content "
                                                 f"(digest {prior.digest[:16]}, this one {record_digest[:16]})")
            cosigned = countersigners(record, keys) - {lab}
            seat_labs = set()
            for seat in body.seats:
                if "/" not in seat.agent_name:
                    raise RecordRejected("malformed", f"seat {seat.seat}'s agent {seat.agent_name!r} has no lab")
                seat_labs.add(lab_of(seat.agent_name))
            foreign = seat_labs - {lab} - cosigned
            if foreign:
                raise RecordRejected("foreign_agent", f"seats name agents of {', '.join(sorted(foreign))}, which "
                                                      f"did not countersign")
            replay(body)
            if "cross-lab" in self.policies and len(seat_labs) < 2:
                raise RecordRejected("policy_cross_lab", f"every seat is an agent of {lab}")
            if "countersigned" in self.policies and not cosigned:
                raise RecordRejected("policy_countersigned", "no other lab countersigned")
            import_record(self.store, body)
        except RecordRejected as e:
            self.state.reject(peer, lab, match_id, record_digest, e.reason, e.detail)
            return e.reason
        self.state.accept(lab, match_id, record_digest, record.SerializeToString(), peer, sorted(cosigned))
        return ""


# ---- the pool -----------------------------------------------------------------------------------------------
def pool_records(store: Store) -> list[MatchRecord]:
    """The imported matches (global ids "lab/match"), in end order: what the aggregate rates."""
    return [m for m in store.finished_matches() if "/" in m.match_id]


def labs_behind(records: list[MatchRecord], state: FederationState) -> dict[str, Counter]:
    """For each agent, the labs whose signatures its matches rest on: the refereeing lab of each of its
    matches, and any lab that countersigned it, with how many matches each."""
    cosigned = {f"{a.lab}/{a.match_id}": a.countersigned_by for a in state.all_accepted()}
    behind: dict[str, Counter] = {}
    for m in records:
        labs = {m.match_id.split("/", 1)[0], *cosigned.get(m.match_id, ())}
        for name in set(m.agent_names):
            behind.setdefault(name, Counter()).update(labs)
    return behind


def pool_leaderboard(store: Store, *, game_id: str = "", resamples: int = 1000, seed: int = 0) -> Leaderboard:
    """One Bradley–Terry pool over every imported match, with bootstrap intervals."""
    query = LeaderboardQuery(method="bradley_terry", game_id=game_id, bt=BTOptions(resamples=resamples, seed=seed))
    return compute_leaderboard(pool_records(store), query)
