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
A record refused only for want of a countersignature (foreign_agent, policy_countersigned) is noted as
awaiting; each later pull asks the peer for it again (GetRecord) and, when its signatures changed,
considers it again: the lab whose agent held the seat may countersign long after the match.
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
from .keys import PublicLabKey
from .peers import PeerRefused, contact, trust, trusted_keys
from .records import RecordRejected, check_signed, countersigners, digest, seat_labs, signatures_digest
from .replay import replay
from .state import FederationState

POLICIES = {
    "cross-lab": "count only matches whose seats belong to two labs or more",
    "countersigned": "count only records countersigned by another lab",
}


@dataclass
class PeerReport:
    address: str
    lab: str = ""
    key_id: str = ""
    fetched: int = 0
    rechecked: int = 0       # records refused before for want of a countersignature, asked for again
    accepted: int = 0
    rejected: Counter = field(default_factory=Counter)
    error: str = ""          # why the peer was refused or could not be read to the end

    def to_json(self) -> dict:
        return {"address": self.address, "lab": self.lab, "key_id": self.key_id, "fetched": self.fetched,
                "rechecked": self.rechecked, "accepted": self.accepted, "rejected": dict(self.rejected), "error": self.error}


# Rejections a later countersignature can lift: such records are asked for again on each pull.
AWAITING = ("foreign_agent", "policy_countersigned")


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
        return trusted_keys(self.state)

    def trust(self, key: PublicLabKey, source: str) -> None:
        """Trusts `key` for its lab (--trust). ValueError when another key is already trusted for it."""
        trust(self.state, key, source)

    # ---- pulling ----------------------------------------------------------------------------------------
    def pull(self, address: str, stub: federation_pb2_grpc.FederationServiceStub, metadata, *, page_size: int = 100,
             max_records: int | None = None) -> PeerReport:
        """Everything new from one peer (or `max_records` of it); never raises for the peer's faults."""
        report = PeerReport(address)
        try:
            key = contact(self.state, address, stub, metadata)
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
            self.recheck(address, stub, metadata, report)
        except PeerRefused as e:
            report.error = f"refused: {e}"
        except grpc.RpcError as e:
            report.error = f"{e.code().name}: {e.details()}"
        return report

    def recheck(self, address: str, stub, metadata, report: PeerReport) -> None:
        """Asks the peer again (GetRecord) for each record refused only for want of a countersignature,
        and considers again those whose signatures changed since (a lab may countersign any time after
        the match). Earlier rejections stay noted; an accepted record is counted once, now."""
        for row in self.state.awaiting(address):
            try:
                record = stub.GetRecord(fpb.GetRecordRequest(match_id=row["match_id"]), metadata=metadata).record
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.NOT_FOUND:
                    raise
                with self.state.transaction():      # the peer does not serve it (any more): nothing to wait for
                    self.state.stop_awaiting(row["lab"], row["match_id"], address)
                continue
            if signatures_digest(record) == row["signatures"]:
                continue                             # nobody countersigned since
            report.rechecked += 1
            with self.state.transaction():
                reason = self.consider(address, record)
            if reason:
                report.rejected[reason] += 1
            else:
                report.accepted += 1

    def consider(self, peer: str, record: fpb.SignedMatchRecord) -> str:
        """Checks one record and imports it; returns "" when accepted, else the rejection reason (noted)."""
        lab = match_id = ""
        record_digest = digest(record.body)
        try:
            keys = self.keys()
            body = check_signed(record, keys)
            lab, match_id = body.lab, body.match_id
            prior = self.state.accepted(lab, match_id)
            if prior is not None:
                if prior.digest == record_digest:
                    raise RecordRejected("duplicate", f"{lab}/{match_id} was accepted before (from {prior.peer})")
                raise RecordRejected("conflict", f"{lab}/{match_id} was accepted before with other content "
                                                 f"(digest {prior.digest[:16]}, this one {record_digest[:16]})")
            cosigned = countersigners(record, keys) - {lab}
            labs = seat_labs(body)
            foreign = labs - {lab} - cosigned
            if foreign:
                raise RecordRejected("foreign_agent", f"seats name agents of {', '.join(sorted(foreign))}, which "
                                                      f"did not countersign")
            replay(body)
            if "cross-lab" in self.policies and len(labs) < 2:
                raise RecordRejected("policy_cross_lab", f"every seat is an agent of {lab}")
            if "countersigned" in self.policies and not cosigned:
                raise RecordRejected("policy_countersigned", "no other lab countersigned")
            import_record(self.store, body)
        except RecordRejected as e:
            self.state.reject(peer, lab, match_id, record_digest, e.reason, e.detail)
            if e.reason in AWAITING:
                self.state.await_countersignature(peer, lab, match_id, signatures_digest(record))
            else:       # refused for good, as this peer serves it (another peer's copy may still await)
                self.state.stop_awaiting(lab, match_id, peer)
            return e.reason
        self.state.accept(lab, match_id, record_digest, record.SerializeToString(), peer, sorted(cosigned))
        self.state.stop_awaiting(lab, match_id)
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
