"""Cross-lab matches and countersignatures, with real processes on loopback: beta's agent `bob` and
gamma's agent `carol` play on lab alpha's server with federated keys alpha issued for "beta/bob" and
"gamma/carol" (separate `arena-agent` processes), against each other and alpha's house agent; alpha's
records name the seats so. Alpha and beta run servers and play local matches too; gamma runs none (a
lab needs only its key to countersign). The aggregator refuses the cross-lab records (foreign_agent)
until every lab with a seat has countersigned (`federation countersign`, which replays each record
first and checks the agent's own log); then the same aggregator accepts them, counting nothing twice,
and the pool is one Bradley–Terry fit on the union of what it accepted. Attacks: countersignatures
alpha must refuse, and records beta must refuse to countersign."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

import grpc
import pytest

from arena.v1 import federation_pb2 as fpb
from arena.v1 import federation_pb2_grpc

from arena_server.federation.keys import LabKey, load_key
from arena_server.federation.records import SIGNING_PREFIX, encode_body, global_agent_name, sign
from arena_server.federation.state import FederationState
from arena_server.ratings import BTOptions, LeaderboardQuery, compute_leaderboard
from arena_server.store import MatchRecord

from ..conftest import ROOT, start_server
from ..e2e.helpers import run_tournament, wait_connected
from .test_three_labs import RESAMPLES, board_rows, cli, start_peer

# A round robin of bob, carol and alpha's house agent `random`, each pairing once in each seat.
CROSS_LAB_MATCHES = 6
PER_AGENT = 4


class Lab:
    def __init__(self, name: str, folder):
        self.name = name
        self.folder = folder
        self.db = folder / "arena.db"
        cli("federation", "init", "--lab", name, "--db", str(self.db))
        self.key_file = folder / "arena.db.lab-key"
        self.public_key_file = folder / "arena.db.lab-key.pub"
        self.server = start_server(folder, "--per-decision", "5", "--house-delay", "0.05")
        self.read_key = cli("keys", "create", "--db", str(self.db), "--scopes", "spectate").stdout.strip()

    @property
    def address(self) -> str:
        return self.server.address

    @property
    def key(self) -> LabKey:
        return load_key(self.key_file)

    def stub(self):
        return federation_pb2_grpc.FederationServiceStub(grpc.insecure_channel(self.address))

    def metadata(self):
        return [("authorization", f"Bearer {self.read_key}")]

    def records(self) -> list[fpb.SignedMatchRecord]:
        return list(self.stub().ListRecords(fpb.ListRecordsRequest(page_size=1000), metadata=self.metadata()).records)

    def finished(self) -> list[MatchRecord]:
        store = self.server.store()
        try:
            return list(store.finished_matches())
        finally:
            store.close()


class KeyOnlyLab:
    """A lab with a key and no server: it countersigns, its agents play elsewhere."""

    def __init__(self, name: str, folder):
        self.name = name
        self.folder = folder
        self.db = folder / "arena.db"
        cli("federation", "init", "--lab", name, "--db", str(self.db))
        self.key_file = folder / "arena.db.lab-key"
        self.public_key_file = folder / "arena.db.lab-key.pub"

    @property
    def key(self) -> LabKey:
        return load_key(self.key_file)


def play_on(server, key: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "arena_client.cli", "random", "--server", server.address,
                             "--game", "tic_tac_toe", "--no-ladder", "--seed", "5", "--matches", str(PER_AGENT)],
                            env=dict(os.environ, ARENA_API_KEY=key), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    labs = {}
    agents = []
    try:
        for name in ("alpha", "beta"):
            labs[name] = Lab(name, tmp_path_factory.mktemp(name))
            done = run_tournament(labs[name].server, "tic_tac_toe", ["random", "mcts"], seed=len(labs))
            assert done.matches_finished == done.matches_total == 2
        labs["gamma"] = KeyOnlyLab("gamma", tmp_path_factory.mktemp("gamma"))
        alpha = labs["alpha"]
        # Alpha issues each visiting agent a federated play key; each connects with it, as its lab runs it.
        for lab, agent in (("beta", "bob"), ("gamma", "carol")):
            issued = cli("keys", "create", "--db", str(alpha.db), "--agent", f"{lab}/{agent}")
            assert f"agent {lab}/{agent}" in issued.stderr
            agents.append((labs[lab], agent, play_on(alpha.server, issued.stdout.strip())))
        wait_connected(alpha.server, "beta/bob", "gamma/carol")
        done = run_tournament(alpha.server, "tic_tac_toe", ["beta/bob", "gamma/carol", "random"], seed=11)
        assert done.matches_finished == done.matches_total == CROSS_LAB_MATCHES
        for lab, agent, process in agents:           # each agent's own log of what it played: its lab keeps it
            out, err = process.communicate(timeout=60)
            assert process.returncode == 0, err
            (lab.folder / f"{agent}.log").write_text(out)
        # Alpha's operator trusts the labs whose agents play here.
        for lab in ("beta", "gamma"):
            cli("federation", "trust", "--db", str(alpha.db), "--lab", lab, "--public-key",
                str(labs[lab].public_key_file))
        yield labs
    finally:
        for _, _, process in agents:
            process.kill()
            process.wait()
        for lab in labs.values():
            if isinstance(lab, Lab):
                lab.server.stop()


def seated(record: fpb.SignedMatchRecord) -> set[str]:
    return {s.agent_name for s in fpb.MatchRecordBody.FromString(record.body).seats}


def cross_lab(records: list[fpb.SignedMatchRecord], *agents: str) -> list[fpb.SignedMatchRecord]:
    """The records in which all of `agents` held seats (default: any visiting agent)."""
    if not agents:
        return [r for r in records if seated(r) & {"beta/bob", "gamma/carol"}]
    return [r for r in records if set(agents) <= seated(r)]


def global_id(record: fpb.SignedMatchRecord) -> str:
    body = fpb.MatchRecordBody.FromString(record.body)
    return f"{body.lab}/{body.match_id}"


def aggregate(world, db, *extra: str) -> dict:
    alpha, beta = world["alpha"], world["beta"]
    done = cli("federation", "aggregate", "--db", str(db), "--peers", f"{alpha.address},{beta.address}",
               f"--peer-key={alpha.address}={alpha.read_key}", f"--peer-key={beta.address}={beta.read_key}",
               "--trust", f"alpha={alpha.public_key_file}", "--trust", f"beta={beta.public_key_file}",
               "--trust", f"gamma={world['gamma'].public_key_file}",     # gamma runs no server to pin it from
               "--resamples", str(RESAMPLES), "--json", *extra)
    return json.loads(done.stdout)


def countersign(world, lab: str, peer: str, *extra: str) -> dict:
    done = cli("federation", "countersign", "--peer", peer, "--key", world["alpha"].read_key, "--db",
               str(world[lab].db), "--trust", f"alpha={world['alpha'].public_key_file}", "--json", *extra)
    return json.loads(done.stdout)


def union(world) -> list[MatchRecord]:
    """The servers' finished matches straight from their databases, with global names."""
    out = []
    for name in ("alpha", "beta"):
        for m in world[name].finished():
            out.append(MatchRecord(**{**vars(m), "match_id": f"{name}/{m.match_id}", "players": [
                {**p, "agent_name": global_agent_name(name, p["agent_name"])} for p in m.players]}))
    return sorted(out, key=lambda m: (m.ended_at, m.match_id))


def test_alpha_records_the_visitors_seats_under_their_labs_names(world):
    crossed = cross_lab(world["alpha"].records())
    assert len(crossed) == CROSS_LAB_MATCHES
    pairs = Counter(frozenset(seated(r)) for r in crossed)
    assert pairs == {frozenset({"alpha/random", "beta/bob"}): 2, frozenset({"alpha/random", "gamma/carol"}): 2,
                     frozenset({"beta/bob", "gamma/carol"}): 2}
    for record in crossed:
        assert fpb.MatchRecordBody.FromString(record.body).lab == "alpha"
        assert [(s.lab, s.role) for s in record.signatures] == [("alpha", fpb.SIGNATURE_ROLE_REFEREE)]


def test_records_count_once_every_lab_with_a_seat_countersigned_and_the_pool_is_the_fit_on_the_union(world, tmp_path):
    alpha, beta, gamma = world["alpha"], world["beta"], world["gamma"]
    records = alpha.records()
    bobs = {global_id(r) for r in cross_lab(records, "beta/bob")}
    carols = {global_id(r) for r in cross_lab(records, "gamma/carol")}
    both = bobs & carols
    assert (len(bobs | carols), len(bobs), len(carols), len(both)) == (CROSS_LAB_MATCHES, PER_AGENT, PER_AGENT, 2)
    alpha_local = len(records) - CROSS_LAB_MATCHES
    db = tmp_path / "agg.db"
    before = {p["lab"]: p for p in aggregate(world, db, "--resamples", "0")["peers"]}
    assert (before["alpha"]["fetched"], before["alpha"]["accepted"], before["alpha"]["rejected"]) == (
        len(records), alpha_local, {"foreign_agent": CROSS_LAB_MATCHES})
    assert (before["beta"]["accepted"], before["beta"]["rejected"]) == (len(beta.finished()), {})

    # Beta countersigns the matches bob's own log lists; the others are none of its business.
    signed = countersign(world, "beta", alpha.address, "--played", str(beta.folder / "bob.log"))
    assert (sorted(signed["signed"]), signed["refused"], signed["skipped"], signed["error"]) == (
        sorted(bobs), [], len(records) - PER_AGENT, "")
    again = countersign(world, "beta", alpha.address)           # from beta's cursor: nothing new
    assert (again["fetched"], again["signed"], again["refused"]) == (0, [], [])
    over = countersign(world, "beta", alpha.address, "--from-start")
    assert (over["fetched"], over["signed"], over["already"], over["refused"]) == (len(records), [], PER_AGENT, [])

    middle = {p["lab"]: p for p in aggregate(world, db, "--resamples", "0")["peers"]}
    assert (middle["alpha"]["fetched"], middle["alpha"]["rechecked"], middle["alpha"]["accepted"],
            middle["alpha"]["rejected"]) == (0, PER_AGENT, PER_AGENT - len(both), {"foreign_agent": len(both)})

    signed = countersign(world, "gamma", alpha.address, "--played", str(gamma.folder / "carol.log"))
    assert (sorted(signed["signed"]), signed["refused"], signed["error"]) == (sorted(carols), [], "")
    for record in cross_lab(alpha.records()):       # every signature, alpha's first, then in the order given
        labs = [lab for lab, mine in (("beta", bobs), ("gamma", carols)) if global_id(record) in mine]
        assert [(s.lab, s.role) for s in record.signatures] == [("alpha", fpb.SIGNATURE_ROLE_REFEREE)] + [
            (lab, fpb.SIGNATURE_ROLE_COUNTERSIGNATURE) for lab in labs]
        for countersignature in record.signatures[1:]:
            assert world[countersignature.lab].key.public.verify(countersignature.signature,
                                                                 SIGNING_PREFIX + record.body)

    after = aggregate(world, db)
    by_lab = {p["lab"]: p for p in after["peers"]}
    assert (by_lab["alpha"]["fetched"], by_lab["alpha"]["rechecked"], by_lab["alpha"]["accepted"],
            by_lab["alpha"]["rejected"]) == (0, PER_AGENT, PER_AGENT, {})
    assert (by_lab["beta"]["fetched"], by_lab["beta"]["accepted"]) == (0, 0)
    # The earlier refusals stay noted, with why; nothing is counted twice.
    state = FederationState(tmp_path / "agg.db.federation")
    try:
        rejections = Counter((r["lab"], r["reason"], r["detail"]) for r in state.rejections())
        accepted = {f"{a.lab}/{a.match_id}": a.countersigned_by for a in state.all_accepted()}
    finally:
        state.close()
    missing = "seats name agents of {}, which did not countersign"
    assert rejections == {("alpha", "foreign_agent", missing.format("beta")): PER_AGENT - len(both),
                          ("alpha", "foreign_agent", missing.format("gamma")): PER_AGENT,   # once alone, once with bob
                          ("alpha", "foreign_agent", missing.format("beta, gamma")): len(both)}
    assert sorted(accepted) == sorted(m.match_id for m in union(world))
    assert {match: accepted[match] for match in bobs | carols} == {
        match: tuple(lab for lab, mine in (("beta", bobs), ("gamma", carols)) if match in mine)
        for match in bobs | carols}

    expected = compute_leaderboard(union(world), LeaderboardQuery(method="bradley_terry",
                                                                  bt=BTOptions(resamples=RESAMPLES)))
    assert after["leaderboard"]["matches"] == expected.matches_counted == len(union(world))
    assert board_rows(after["leaderboard"]["entries"]) == [
        (r.agent_name, round(r.rating, 9), round(r.lower, 9), round(r.upper, 9), r.matches, r.wins, r.draws, r.losses)
        for r in expected.rows]
    rests_on = {e["agent"]: e["labs"] for e in after["leaderboard"]["entries"]}
    assert rests_on["beta/bob"] == {"alpha": PER_AGENT, "beta": PER_AGENT, "gamma": len(both)}
    assert rests_on["gamma/carol"] == {"alpha": PER_AGENT, "beta": len(both), "gamma": PER_AGENT}
    assert rests_on["beta/mcts"] == {"beta": 2}
    third = aggregate(world, db, "--resamples", "0")            # nothing awaits any more
    assert [(p["fetched"], p["rechecked"], p["accepted"]) for p in third["peers"]] == [(0, 0, 0)] * 2

    # The policies count exactly the countersigned, cross-lab matches (here the same ones).
    for policy, reason in (("countersigned", "policy_countersigned"), ("cross-lab", "policy_cross_lab")):
        report = aggregate(world, tmp_path / f"{policy}.db", "--policy", policy, "--resamples", "0")
        by_lab = {p["lab"]: p for p in report["peers"]}
        assert (by_lab["alpha"]["accepted"], by_lab["alpha"]["rejected"]) == (CROSS_LAB_MATCHES, {reason: alpha_local})
        assert (by_lab["beta"]["accepted"], by_lab["beta"]["rejected"]) == (0, {reason: len(beta.finished())})
        assert report["leaderboard"]["matches"] == CROSS_LAB_MATCHES
        assert {e["agent"] for e in report["leaderboard"]["entries"]} == {"alpha/random", "beta/bob", "gamma/carol"}


def test_alpha_keeps_only_countersignatures_of_trusted_labs_that_held_a_seat(world):
    alpha, beta = world["alpha"], world["beta"]
    stub, md = alpha.stub(), alpha.metadata()
    records = alpha.records()
    record = next(r for r in records if seated(r) == {"alpha/random", "beta/bob"})
    local = next(r for r in records if not cross_lab([r]))
    match_id = fpb.MatchRecordBody.FromString(record.body).match_id
    local_id = fpb.MatchRecordBody.FromString(local.body).match_id
    countersig = fpb.SIGNATURE_ROLE_COUNTERSIGNATURE
    forged = sign(record.body, LabKey.generate("beta"), countersig)
    forged.key_id = beta.key.key_id                   # says it is beta's key; is not
    # attack, request, the refusal expected
    attacks = [
        ("unknown match", "m_nope", sign(record.body, beta.key, countersig), grpc.StatusCode.NOT_FOUND),
        ("untrusted lab", match_id, sign(record.body, LabKey.generate("mallory"), countersig),
         grpc.StatusCode.PERMISSION_DENIED),
        ("trusted lab with no seat (gamma)", match_id, sign(record.body, world["gamma"].key, countersig),
         grpc.StatusCode.FAILED_PRECONDITION),
        ("beta countersigning a match its agent did not play", local_id, sign(local.body, beta.key, countersig),
         grpc.StatusCode.FAILED_PRECONDITION),
        ("forged signature under beta's key id", match_id, forged, grpc.StatusCode.INVALID_ARGUMENT),
        ("beta's signature of another record", match_id, sign(local.body, beta.key, countersig),
         grpc.StatusCode.INVALID_ARGUMENT),
        ("the referee's own lab", match_id, sign(record.body, alpha.key, countersig), grpc.StatusCode.INVALID_ARGUMENT),
        ("role REFEREE", match_id, sign(record.body, beta.key), grpc.StatusCode.INVALID_ARGUMENT),
    ]
    print("\nattack | expected refusal | seen | detail")
    for attack, target, signature, code in attacks:
        with pytest.raises(grpc.RpcError) as refused:
            stub.Countersign(fpb.CountersignRequest(match_id=target, countersignature=signature), metadata=md)
        print(f"{attack} | {code.name} | {refused.value.code().name} | {refused.value.details()}")
        assert refused.value.code() == code, (attack, refused.value.details())
    with pytest.raises(grpc.RpcError) as refused:
        stub.Countersign(fpb.CountersignRequest(match_id=match_id, countersignature=sign(record.body, beta.key,
                                                                                         countersig)))
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED

    # Beta's genuine countersignature is kept once, however often it is given.
    genuine = sign(record.body, beta.key, countersig)
    first = stub.Countersign(fpb.CountersignRequest(match_id=match_id, countersignature=genuine), metadata=md)
    second = stub.Countersign(fpb.CountersignRequest(match_id=match_id, countersignature=genuine), metadata=md)
    assert second.already_countersigned and second.record == first.record
    assert [(s.lab, s.role) for s in first.record.signatures] == [
        ("alpha", fpb.SIGNATURE_ROLE_REFEREE), ("beta", countersig)]
    assert first.record.body == record.body
    assert stub.GetRecord(fpb.GetRecordRequest(match_id=match_id), metadata=md).record == first.record
    assert [s.lab for s in stub.GetRecord(fpb.GetRecordRequest(match_id=local_id), metadata=md).record.signatures] \
        == ["alpha"]


def test_beta_refuses_to_countersign_a_record_that_does_not_replay(world, tmp_path):
    """Alpha turned hostile: it serves records of bob's matches changed after the fact, signed with its
    genuine key (so the signature alone proves nothing wrong), or not signed by it at all."""
    alpha = world["alpha"]
    crossed = cross_lab(alpha.records(), "beta/bob")
    changed_result = fpb.MatchRecordBody.FromString(crossed[0].body)
    changed_result.result.returns[:] = list(reversed(changed_result.result.returns))
    changed_result.result.ranks[:] = list(reversed(changed_result.result.ranks))
    changed_result.match_id = "m_changed_result"
    changed_decision = fpb.MatchRecordBody.FromString(crossed[1].body)
    changed_decision.moves[1].action.action = changed_decision.moves[0].action.action
    changed_decision.match_id = "m_changed_decision"
    after_signing = fpb.SignedMatchRecord()
    after_signing.CopyFrom(crossed[0])
    after_signing.body = encode_body(changed_result)     # alpha's signature of the genuine body kept
    not_alphas = fpb.MatchRecordBody.FromString(crossed[1].body)
    not_alphas.match_id = "m_not_alphas"

    def signed_by(body, key):
        data = encode_body(body)
        return fpb.SignedMatchRecord(body=data, signatures=[sign(data, key)]).SerializeToString().hex()

    attacks = [
        ("changed result, re-signed by alpha", signed_by(changed_result, alpha.key), "result_mismatch"),
        ("changed decision, re-signed by alpha", signed_by(changed_decision, alpha.key), "illegal_move"),
        ("changed result after alpha signed", after_signing.SerializeToString().hex(), "bad_signature"),
        ("signed by a key that is not alpha's", signed_by(not_alphas, LabKey.generate("alpha")), "bad_signature"),
    ]
    key_copy = tmp_path / "alpha.lab-key"                # the hostile peer holds alpha's genuine key
    key_copy.write_bytes(alpha.key_file.read_bytes())
    key_copy.chmod(0o600)
    peer, address = start_peer(tmp_path, key_copy, [record for _, record, _ in attacks])
    try:
        report = countersign(world, "beta", address)
    finally:
        peer.kill()
        peer.wait()
    assert (report["lab"], report["fetched"], report["signed"], report["error"]) == ("alpha", len(attacks), [], "")
    print("\nattack | expected refusal | seen | detail")
    for (attack, _, reason), refused in zip(attacks, report["refused"]):
        print(f"{attack} | {reason} | {refused['reason']} | {refused['detail']}")
    assert [r["reason"] for r in report["refused"]] == [reason for _, _, reason in attacks]
    state = FederationState(world["beta"].folder / "arena.db.federation")
    try:
        noted = [(n["peer"], n["outcome"]) for n in state.countersign_notes() if n["peer"] == address]
    finally:
        state.close()
    assert noted == [(address, reason) for _, _, reason in attacks]


def test_beta_countersigns_over_mutual_tls(world, tmp_path, pki):
    """Delta serves over mutual TLS (only clients with a certificate of its CA get in); bob plays there
    and beta countersigns over the same kind of channel, with the client certificate delta accepts."""
    beta = world["beta"]
    db = tmp_path / "arena.db"
    cli("federation", "init", "--lab", "delta", "--db", str(db))
    server = start_server(tmp_path, "--tls-cert", str(pki["server"].cert), "--tls-key", str(pki["server"].key),
                          "--tls-client-ca", str(pki["ca"].cert), "--per-decision", "5", "--house-delay", "0.05")
    tls = ["--root-certificates", str(pki["ca"].cert), "--client-cert", str(pki["client"].cert),
           "--client-key", str(pki["client"].key)]
    bob = None
    try:
        read_key = cli("keys", "create", "--db", str(db), "--scopes", "spectate").stdout.strip()
        bob_key = cli("keys", "create", "--db", str(db), "--agent", "beta/bob").stdout.strip()
        bob = subprocess.Popen([sys.executable, "-m", "arena_client.cli", "random", "--server", server.address,
                                "--game", "tic_tac_toe", "--no-ladder", "--matches", "2", *tls],
                               env=dict(os.environ, ARENA_API_KEY=bob_key), cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        cli("tournament", "run", "--server", server.address, "--key", server.admin_key, *tls, "--game", "tic_tac_toe",
            "--agents", "beta/bob,random", "--per-decision", "5", "--absent-timeout", "60")
        out, err = bob.communicate(timeout=60)
        assert bob.returncode == 0, err
        (tmp_path / "bob.log").write_text(out)

        def countersign_delta(*extra: str) -> subprocess.CompletedProcess:
            return cli("federation", "countersign", "--peer", server.address, "--key", read_key, "--db", str(beta.db),
                       "--trust", f"delta={tmp_path / 'arena.db.lab-key.pub'}", "--played", str(tmp_path / "bob.log"),
                       "--json", *extra, check=False)

        without_certificate = countersign_delta("--root-certificates", str(pki["ca"].cert))
        assert without_certificate.returncode == 1
        assert json.loads(without_certificate.stdout)["error"].startswith("UNAVAILABLE")
        cli("federation", "trust", "--db", str(db), "--lab", "beta", "--public-key", str(beta.public_key_file))
        done = countersign_delta(*tls)
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert (report["lab"], len(report["signed"]), report["refused"], report["error"]) == ("delta", 2, [], "")
    finally:
        if bob is not None:
            bob.kill()
            bob.wait()
        server.stop()
    store = server.store()
    try:
        assert sorted(p["agent_name"] for m in store.finished_matches() for p in m.players) == \
            ["beta/bob", "beta/bob", "random", "random"]
    finally:
        store.close()
    state = FederationState(tmp_path / "arena.db.federation")        # delta's own file: what it keeps
    try:
        assert sorted(c["lab"] for m in report["signed"] for c in state.countersignatures(m.split("/", 1)[1])) == \
            ["beta", "beta"]
    finally:
        state.close()
