"""Countersigning: a lab vouches for another lab's records of matches its own agents played there.

Lab B's agent `bob` plays on lab A's server with a federated key A issued for `B/bob`; A's records of
those matches name the seat "B/bob" and carry A's referee signature. An aggregator refuses them
(`foreign_agent`) until B countersigns. `arena-server federation countersign --peer A` on B: contact A
(its key pinned on first contact, or given with --trust, as the aggregator does), page through A's
records from B's cursor, and for each record in which an agent of B held a seat, make the aggregator's
own checks (records.check_signed: decodes, A's key, A's signature, canonical; replay.replay: rules,
parameters, chance from the seed, legal moves, result), then sign the body with B's key (role
COUNTERSIGNATURE) and hand the signature to A (Countersign). Records of other labs' agents only are
none of B's business (skipped); a record that fails a check is refused, and B says why.

The checks prove the record is A's and consistent, not that B's agent really played it: A could make
up a match under "B/bob". With `--played FILE` (the output of B's `arena-agent`, one line per match it
finished: "<match_id>  <game>  seat <n> ...", or bare match ids), B countersigns only matches its agent
reports having played, in that game and that seat, and refuses the others as `not_played`.

B's notes (what it signed, what it refused and why) and its cursor are kept in B's federation state
file, committed per page after the page's Countersign calls; a run stopped midway does that page again,
which changes nothing (A keeps one countersignature per lab and record).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import grpc

from arena.v1 import federation_pb2 as fpb

from .keys import LabKey
from .peers import PeerRefused, contact, trusted_keys
from .records import RecordRejected, check_signed, countersignature, digest, seat_labs, sign
from .replay import replay
from .state import FederationState

TABLE = "countersign_peers"
# A line of arena-agent's output for a finished match (clients/arena_client/cli.py), or a bare match id.
AGENT_LINE = re.compile(r"^(?P<match>[A-Za-z0-9_.\-]+)  (?P<game>\S+)  seat (?P<seat>\d+)(?:  | against )")
BARE_ID = re.compile(r"^[A-Za-z0-9_.\-]+$")


@dataclass(frozen=True)
class Played:
    """A match this lab's agent says it played: its id on the referee's server, and when known the game
    and the seat."""

    match_id: str
    game_id: str = ""
    seat: int | None = None


def read_played(text: str) -> dict[str, Played]:
    """The matches listed in an agent's output (other lines, such as "connected to ...", are skipped)."""
    played = {}
    for line in text.splitlines():
        line = line.strip()
        if found := AGENT_LINE.match(line):
            played[found["match"]] = Played(found["match"], found["game"], int(found["seat"]))
        elif BARE_ID.match(line):
            played[line] = Played(line)
    return played


@dataclass
class CountersignReport:
    address: str
    lab: str = ""
    key_id: str = ""
    fetched: int = 0
    skipped: int = 0                 # records in which no agent of this lab held a seat
    signed: list[str] = field(default_factory=list)       # global match ids countersigned now
    already: int = 0                 # records this lab had countersigned before
    refused: list[dict] = field(default_factory=list)     # {"match", "reason", "detail"}
    error: str = ""

    def to_json(self) -> dict:
        return {"address": self.address, "lab": self.lab, "key_id": self.key_id, "fetched": self.fetched,
                "skipped": self.skipped, "signed": self.signed, "already": self.already, "refused": self.refused,
                "refused_by_reason": dict(Counter(r["reason"] for r in self.refused)), "error": self.error}


class NotPlayed(Exception):
    """This lab's agents did not report playing the match the record describes."""


class Countersigner:
    def __init__(self, key: LabKey, state: FederationState, played: dict[str, Played] | None = None):
        self.key = key
        self.state = state
        self.played = played       # None: take the referee's word that this lab's agent held the seat

    def run(self, address: str, stub, metadata, *, page_size: int = 100, from_start: bool = False) -> CountersignReport:
        """Countersigns what is new on one peer (with `from_start`, every record again: those this lab
        countersigned are recognised by their countersignature); never raises for the peer's faults."""
        report = CountersignReport(address)
        try:
            peer_key = contact(self.state, address, stub, metadata, TABLE)
            report.lab, report.key_id = peer_key.lab, peer_key.key_id
            if peer_key.lab == self.key.lab:
                raise PeerRefused(f"the peer is lab {peer_key.lab}, this lab: a lab does not countersign its own records")
            if from_start:
                with self.state.transaction():
                    self.state.set_cursor(address, "", TABLE)
            while True:
                cursor = self.state.peer(address, TABLE)["cursor"]
                page = stub.ListRecords(fpb.ListRecordsRequest(cursor=cursor, page_size=page_size), metadata=metadata)
                if not page.records:
                    break
                notes = []
                try:
                    for record in page.records:
                        notes.append(self.consider(address, record, stub, metadata, report))
                finally:      # the notes so far are kept; the cursor moves only past a page done to the end
                    with self.state.transaction():
                        for note in filter(None, notes):
                            self.state.note_countersign(address, *note)
                        if len(notes) == len(page.records):
                            self.state.set_cursor(address, page.next_cursor, TABLE)
                if len(page.records) < page_size or page.next_cursor == cursor:
                    break
        except PeerRefused as e:
            report.error = f"refused: {e}"
        except grpc.RpcError as e:
            report.error = f"{e.code().name}: {e.details()}"
        return report

    def consider(self, address: str, record: fpb.SignedMatchRecord, stub, metadata,
                 report: CountersignReport) -> tuple | None:
        """Checks one record and countersigns it when it names this lab's agents; returns the note to
        keep, (lab, match_id, digest, outcome, detail), or None for a record that is none of ours.
        A Countersign call that fails for want of the peer (not a refusal) raises grpc.RpcError."""
        report.fetched += 1
        lab = match_id = ""
        record_digest = digest(record.body)
        try:
            body = check_signed(record, trusted_keys(self.state))
            lab, match_id = body.lab, body.match_id
            if self.key.lab not in seat_labs(body):
                report.skipped += 1
                return None
            if countersignature(record, self.key.public) is not None:
                report.already += 1
                return None
            if lab != report.lab:
                raise RecordRejected("malformed", f"a record of lab {lab}: only its referee takes its "
                                                  f"countersignatures, and this peer is lab {report.lab}")
            replay(body)
            self.check_played(body)
        except RecordRejected as e:
            report.refused.append({"match": f"{lab}/{match_id}" if lab else "", "reason": e.reason, "detail": e.detail})
            return lab, match_id, record_digest, e.reason, e.detail
        except NotPlayed as e:
            report.refused.append({"match": f"{lab}/{match_id}", "reason": "not_played", "detail": str(e)})
            return lab, match_id, record_digest, "not_played", str(e)
        signature = sign(record.body, self.key, fpb.SIGNATURE_ROLE_COUNTERSIGNATURE)
        try:
            answer = stub.Countersign(fpb.CountersignRequest(match_id=match_id, countersignature=signature),
                                      metadata=metadata)
        except grpc.RpcError as e:
            if e.code() not in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION,
                                grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.INVALID_ARGUMENT):
                raise
            detail = f"{e.code().name}: {e.details()}"
            report.refused.append({"match": f"{lab}/{match_id}", "reason": "refused_by_peer", "detail": detail})
            return lab, match_id, record_digest, "refused_by_peer", detail
        if answer.already_countersigned:
            report.already += 1
            return lab, match_id, record_digest, "already", "countersigned before"
        report.signed.append(f"{lab}/{match_id}")
        return lab, match_id, record_digest, "signed", f"countersigned with key {self.key.key_id}"

    def check_played(self, body) -> None:
        if self.played is None:
            return
        mine = [s.seat for s in body.seats if s.agent_name.split("/", 1)[0] == self.key.lab]
        played = self.played.get(body.match_id)
        if played is None:
            raise NotPlayed(f"no agent of {self.key.lab} reports playing match {body.match_id}")
        if played.game_id and played.game_id != body.game_id:
            raise NotPlayed(f"the agent played {played.game_id} in match {body.match_id}; the record says {body.game_id}")
        if played.seat is not None and played.seat not in mine:
            raise NotPlayed(f"the agent held seat {played.seat} of match {body.match_id}; the record gives "
                            f"{self.key.lab}'s agents seat(s) {', '.join(map(str, mine))}")
