"""Countersigning in process: the aggregator asks again for records refused for want of a
countersignature, the countersigning lab's checks and its notes, and `federation trust`. The real
processes are in test_cross_lab.py."""

from __future__ import annotations

import subprocess
import sys

import grpc
import pytest

from arena.v1 import federation_pb2 as fpb

from arena_server.federation.aggregator import Aggregator, pool_records
from arena_server.federation.countersign import TABLE, Countersigner
from arena_server.federation.keys import LabKey
from arena_server.federation.records import encode_body, sign
from arena_server.federation.service import lab_info
from arena_server.federation.state import FederationState
from arena_server.store import Store

from ..conftest import ROOT
from .test_verification import ALPHA, BETA, MALLORY, body_of

COUNTERSIGNATURE = fpb.SIGNATURE_ROLE_COUNTERSIGNATURE


class FakeRpcError(grpc.RpcError):
    def __init__(self, code: grpc.StatusCode, details: str):
        self._code, self._details = code, details

    def code(self):
        return self._code

    def details(self):
        return self._details


class Peer:
    """A lab's FederationService in process: its records by match id (ListRecords pages by index), and
    the countersignatures it is given (refused with `refuse`, when set)."""

    def __init__(self, key, records: list[fpb.SignedMatchRecord]):
        self.key = key
        self.records = records
        self.refuse: FakeRpcError | None = None
        self.given: list[tuple[str, fpb.RecordSignature]] = []

    def _find(self, match_id):
        for record in self.records:
            if fpb.MatchRecordBody.FromString(record.body).match_id == match_id:
                return record
        raise FakeRpcError(grpc.StatusCode.NOT_FOUND, f"no match {match_id!r}")

    def GetLabInfo(self, request, metadata=None):
        return lab_info(self.key)

    def ListRecords(self, request, metadata=None):
        start = int(request.cursor or 0)
        page = self.records[start:start + request.page_size]
        return fpb.ListRecordsResponse(records=page, next_cursor=str(start + len(page)) if page else request.cursor)

    def GetRecord(self, request, metadata=None):
        return fpb.GetRecordResponse(record=self._find(request.match_id))

    def Countersign(self, request, metadata=None):
        if self.refuse is not None:
            raise self.refuse
        record = self._find(request.match_id)
        self.given.append((request.match_id, request.countersignature))
        record.signatures.append(request.countersignature)
        return fpb.CountersignResponse(record=record)


def cross_lab_body(name: str = "tic_tac_toe"):
    body = body_of(name)
    body.seats[1].agent_name = "beta/bob"
    return body


def signed(body, *cosigners) -> fpb.SignedMatchRecord:
    data = encode_body(body)
    return fpb.SignedMatchRecord(body=data, signatures=[sign(data, ALPHA)] + [
        sign(data, c, COUNTERSIGNATURE) for c in cosigners])


@pytest.fixture
def files(tmp_path):
    store, state = Store(tmp_path / "agg.db"), FederationState(tmp_path / "agg.db.federation")
    yield store, state
    store.close()
    state.close()


def test_a_record_awaiting_a_countersignature_is_considered_again_once_it_has_one(files):
    store, state = files
    agg = Aggregator(store, state)
    agg.trust(BETA.public, "test")
    record = signed(cross_lab_body())
    peer = Peer(ALPHA, [record, signed(body_of("pig"))])
    first = agg.pull("alpha:1", peer, [])
    assert (first.fetched, first.accepted, dict(first.rejected), first.rechecked) == (2, 1, {"foreign_agent": 1}, 0)
    assert [r["match_id"] for r in state.awaiting("alpha:1")] == ["m_vector0"]

    unchanged = agg.pull("alpha:1", peer, [])           # nobody countersigned: not considered, not noted again
    assert (unchanged.fetched, unchanged.rechecked, unchanged.accepted, dict(unchanged.rejected)) == (0, 0, 0, {})
    assert [r["reason"] for r in state.rejections()] == ["foreign_agent"]

    record.signatures.append(sign(record.body, MALLORY, COUNTERSIGNATURE))     # not beta's: still foreign
    still = agg.pull("alpha:1", peer, [])
    assert (still.rechecked, dict(still.rejected)) == (1, {"foreign_agent": 1})
    record.signatures.append(sign(record.body, BETA, COUNTERSIGNATURE))
    now = agg.pull("alpha:1", peer, [])
    assert (now.fetched, now.rechecked, now.accepted, dict(now.rejected)) == (0, 1, 1, {})
    assert state.awaiting("alpha:1") == [] and state.accepted("alpha", "m_vector0").countersigned_by == ("beta",)
    assert sorted(m.match_id for m in pool_records(store)) == ["alpha/m_vector0", "alpha/m_vector1"]
    assert [r["reason"] for r in state.rejections()] == ["foreign_agent", "foreign_agent"]
    last = agg.pull("alpha:1", peer, [])
    assert (last.fetched, last.rechecked, last.accepted) == (0, 0, 0)


def test_a_relay_cannot_end_the_wait_and_a_record_no_longer_served_is_not_asked_for(files):
    store, state = files
    agg = Aggregator(store, state)
    agg.trust(BETA.public, "test")
    body = cross_lab_body()
    assert agg.pull("alpha:1", Peer(ALPHA, [signed(body)]), []).rejected == {"foreign_agent": 1}
    broken = signed(body)
    broken.signatures[0].signature = bytes(64)
    relayed = agg.pull("mallory:1", Peer(LabKey.from_seed("mallory", bytes(range(3, 35))), [broken]), [])
    assert relayed.rejected == {"bad_signature": 1}
    assert [(r["peer"], r["match_id"]) for r in state.awaiting("alpha:1")] == [("alpha:1", "m_vector0")]
    gone = agg.pull("alpha:1", Peer(ALPHA, []), [])
    assert (gone.error, gone.rechecked) == ("", 0) and state.awaiting("alpha:1") == []


def test_the_countersigner_signs_what_replays_skips_what_is_not_its_own_and_says_why_it_refuses(tmp_path):
    state = FederationState(tmp_path / "beta.db.federation")
    changed = cross_lab_body("prisoners_dilemma")
    choice = next(m for m in changed.moves if m.WhichOneof("move") == "joint").joint.choices[0]
    choice.action = 1 - choice.action                   # a legal move, but not the one the result follows from
    changed.match_id = "m_changed"
    peer = Peer(ALPHA, [signed(cross_lab_body()), signed(body_of("pig")), signed(changed),
                        signed(cross_lab_body("forfeit"), BETA)])
    signer = Countersigner(BETA, state)
    report = signer.run("alpha:1", peer, [], page_size=2)
    assert (report.lab, report.fetched, report.signed, report.skipped, report.already, report.error) == (
        "alpha", 4, ["alpha/m_vector0"], 1, 1, "")
    assert [(r["match"], r["reason"]) for r in report.refused] == [("alpha/m_changed", "result_mismatch")]
    assert [(match_id, s.lab, s.role) for match_id, s in peer.given] == [("m_vector0", "beta", COUNTERSIGNATURE)]
    assert BETA.public.verify(peer.given[0][1].signature, b"arena.v1.MatchRecordBody\x00" + peer.records[0].body)
    assert [(n["match_id"], n["outcome"]) for n in state.countersign_notes()] == [
        ("m_vector0", "signed"), ("m_changed", "result_mismatch")]
    assert state.peer("alpha:1", TABLE)["cursor"] == "4" and state.peer("alpha:1") is None  # not an aggregator's

    # The peer refuses: noted with its reason; the peer unreachable: the page is done again next time.
    peer.records.append(signed(cross_lab_body("bargain_with_probes")))
    peer.refuse = FakeRpcError(grpc.StatusCode.PERMISSION_DENIED, "lab 'beta' is not trusted here")
    refused = signer.run("alpha:1", peer, [])
    assert [r["reason"] for r in refused.refused] == ["refused_by_peer"] and refused.signed == []
    late = cross_lab_body("pig")
    late.match_id = "m_late"
    peer.records.append(signed(late))
    peer.refuse = FakeRpcError(grpc.StatusCode.UNAVAILABLE, "connection refused")
    down = signer.run("alpha:1", peer, [])
    assert down.error == "UNAVAILABLE: connection refused" and state.peer("alpha:1", TABLE)["cursor"] == "5"
    peer.refuse = None
    back = signer.run("alpha:1", peer, [])
    assert (back.fetched, back.signed, back.error) == (1, ["alpha/m_late"], "")
    assert [n["outcome"] for n in state.countersign_notes()][-2:] == ["refused_by_peer", "signed"]

    # A lab does not countersign for itself, and a peer that changes its key is refused.
    own = FederationState(tmp_path / "alpha.federation")
    assert Countersigner(ALPHA, own).run("alpha:1", peer, []).error.startswith("refused: the peer is lab alpha")
    own.close()
    assert signer.run("alpha:1", Peer(MALLORY, []), []).error.startswith("refused: it publishes key")
    state.close()


def test_a_relayed_record_is_refused_its_referee_is_elsewhere(tmp_path):
    state = FederationState(tmp_path / "beta.db.federation")
    gamma = LabKey.from_seed("gamma", bytes(range(5, 37)))
    state.pin_lab_key("gamma", gamma.public_key, "test")
    body = cross_lab_body()
    body.lab = "gamma"
    data = encode_body(body)
    peer = Peer(ALPHA, [fpb.SignedMatchRecord(body=data, signatures=[sign(data, gamma)])])
    report = Countersigner(BETA, state).run("alpha:1", peer, [])
    assert [r["reason"] for r in report.refused] == ["malformed"] and "only its referee" in report.refused[0]["detail"]
    assert peer.given == []
    state.close()


def trust(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena_server.cli", "federation", "trust", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)


def test_federation_trust_keeps_one_key_per_lab(tmp_path):
    from arena_server.federation.keys import init_key, public_key_path

    beta = init_key(tmp_path / "beta.lab-key", "beta")
    other = init_key(tmp_path / "other.lab-key", "beta")
    db = str(tmp_path / "arena.db")
    done = trust("--db", db, "--lab", "beta", "--public-key", str(public_key_path(tmp_path / "beta.lab-key")))
    assert done.returncode == 0 and f"key {beta.key_id} trusted" in done.stdout
    wrong_lab = trust("--db", db, "--lab", "gamma", "--public-key", str(public_key_path(tmp_path / "beta.lab-key")))
    assert wrong_lab.returncode != 0 and "is the key of lab beta, not gamma" in wrong_lab.stderr
    second = trust("--db", db, "--lab", "beta", "--public-key", str(public_key_path(tmp_path / "other.lab-key")))
    assert second.returncode != 0 and f"gives key {other.key_id}, but key {beta.key_id} is already trusted" \
        in second.stderr
    state = FederationState(tmp_path / "arena.db.federation")
    assert [(r["lab"], bytes(r["public_key"])) for r in state.lab_keys()] == [("beta", beta.public_key)]
    state.close()


def test_with_the_agents_own_log_only_matches_it_played_are_countersigned(tmp_path):
    from arena_server.federation.countersign import read_played

    state = FederationState(tmp_path / "beta.db.federation")
    bodies = {}
    for match_id, name in (("m_played", "tic_tac_toe"), ("m_other_seat", "pig"), ("m_made_up", "prisoners_dilemma")):
        bodies[match_id] = cross_lab_body(name)          # beta/bob in seat 1
        bodies[match_id].match_id = match_id
    peer = Peer(ALPHA, [signed(body) for body in bodies.values()])
    log = ("connected to alpha:1 as beta/bob, playing tic_tac_toe, pig\n"
           "m_played  tic_tac_toe  seat 1 against alpha/random  returns [-1, 1]  normal\n"
           "m_other_seat  pig  seat 0 against alpha/random  returns [1, 0]  normal\n"
           "2 matches finished\n")
    report = Countersigner(BETA, state, read_played(log)).run("alpha:1", peer, [])
    assert report.signed == ["alpha/m_played"]
    assert [(r["match"], r["reason"]) for r in report.refused] == [
        ("alpha/m_other_seat", "not_played"), ("alpha/m_made_up", "not_played")]
    assert "held seat 0" in report.refused[0]["detail"] and "reports playing" in report.refused[1]["detail"]

    # The log completed later (bare ids count too): from the start, the rest is signed, the first recognised.
    fuller = read_played(log.replace("seat 0", "seat 1") + "m_made_up\n")
    again = Countersigner(BETA, state, fuller).run("alpha:1", peer, [], from_start=True)
    assert (again.fetched, sorted(again.signed), again.already, again.refused) == (
        3, ["alpha/m_made_up", "alpha/m_other_seat"], 1, [])
    state.close()


def test_a_peer_lost_midway_keeps_the_notes_so_far_and_the_page_is_done_again(tmp_path):
    state = FederationState(tmp_path / "beta.db.federation")
    bodies = []
    for match_id in ("m_a", "m_b"):
        bodies.append(cross_lab_body())
        bodies[-1].match_id = match_id
    peer = Peer(ALPHA, [signed(body) for body in bodies])
    real = peer.Countersign

    def lost_after_one(request, metadata=None):
        if peer.given:
            raise FakeRpcError(grpc.StatusCode.UNAVAILABLE, "connection reset")
        return real(request, metadata)

    peer.Countersign = lost_after_one
    signer = Countersigner(BETA, state)
    down = signer.run("alpha:1", peer, [])
    assert (down.signed, down.error) == (["alpha/m_a"], "UNAVAILABLE: connection reset")
    assert [(n["match_id"], n["outcome"]) for n in state.countersign_notes()] == [("m_a", "signed")]
    assert state.peer("alpha:1", TABLE)["cursor"] == ""
    peer.Countersign = real
    back = signer.run("alpha:1", peer, [])
    assert (back.fetched, back.already, back.signed, back.error) == (2, 1, ["alpha/m_b"], "")
    assert state.peer("alpha:1", TABLE)["cursor"] == "2"
    state.close()
