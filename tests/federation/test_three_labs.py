"""Three labs, three servers, three databases (real `arena-server serve` processes on loopback), each
playing its own matches; the aggregator (`arena-server federation aggregate`, a process too) pulls their
signed records, and a hostile peer serves forged, changed, replayed and conflicting ones."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from arena.v1 import federation_pb2 as fpb
from arena.v1 import federation_pb2_grpc

from arena_server.federation.keys import LabKey, load_key
from arena_server.federation.records import encode_body, sign
from arena_server.ratings import BTOptions, LeaderboardQuery, compute_leaderboard
from arena_server.store import MatchRecord

from ..conftest import ROOT, start_server
from ..e2e.helpers import run_tournament

LABS = ("alpha", "beta", "gamma")
# Each lab's own matches: house agents only, so they finish in seconds.
PLAYED = {
    "alpha": [("tic_tac_toe", ["random", "mcts"], "", 2), ("pig", ["random", "mcts"], "gtbench_code", 1)],
    "beta": [("tic_tac_toe", ["random", "mcts"], "", 1), ("connect_four", ["random", "mcts"], "", 1)],
    "gamma": [("iterated_prisoners_dilemma", ["tit_for_tat", "always_defect", "random"], "gtbench_2p", 1)],
}
RESAMPLES = 200


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "arena_server.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    if check:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


class Lab:
    def __init__(self, name: str, folder: Path):
        self.name = name
        db = folder / "arena.db"
        cli("federation", "init", "--lab", name, "--db", str(db))
        self.server = start_server(folder, "--per-decision", "5", "--house-delay", "0.2")
        self.key = cli("keys", "create", "--db", str(db), "--scopes", "spectate").stdout.strip()
        self.public_key_file = folder / "arena.db.lab-key.pub"

    @property
    def address(self) -> str:
        return self.server.address

    def play(self, seed: int) -> None:
        for game, agents, preset, per_pairing in PLAYED[self.name]:
            done = run_tournament(self.server, game, agents, games_per_pairing=per_pairing, preset=preset, seed=seed)
            assert done.matches_finished == done.matches_total > 0

    def finished(self) -> list[MatchRecord]:
        store = self.server.store()
        try:
            return list(store.finished_matches())
        finally:
            store.close()

    def records(self) -> list[fpb.SignedMatchRecord]:
        stub = federation_pb2_grpc.FederationServiceStub(grpc.insecure_channel(self.address))
        page = stub.ListRecords(fpb.ListRecordsRequest(page_size=1000),
                                metadata=[("authorization", f"Bearer {self.key}")])
        return list(page.records)


@pytest.fixture(scope="module")
def labs(tmp_path_factory):
    started = {}
    try:
        for seed, name in enumerate(LABS, start=1):
            started[name] = Lab(name, tmp_path_factory.mktemp(name))
            started[name].play(seed)
        yield started
    finally:
        for lab in started.values():
            lab.server.stop()


def aggregate(labs, db: Path, *extra: str, peers=None, check: bool = True) -> dict:
    peers = peers or [lab.address for lab in labs.values()]
    keys = [f"--peer-key={lab.address}={lab.key}" for lab in labs.values() if lab.address in peers]
    done = cli("federation", "aggregate", "--db", str(db), "--peers", ",".join(peers), *keys,
               "--resamples", str(RESAMPLES), "--json", *extra, check=check)
    return json.loads(done.stdout)


def union_of_labs(labs) -> list[MatchRecord]:
    """The labs' finished matches straight from their databases, with global names: what the pool must
    rate when every record is verified."""
    union = []
    for name, lab in labs.items():
        for m in lab.finished():
            union.append(MatchRecord(**{**vars(m), "match_id": f"{name}/{m.match_id}", "players": [
                {**p, "agent_name": f"{name}/{p['agent_name']}"} for p in m.players]}))
    return sorted(union, key=lambda m: (m.ended_at, m.match_id))


def board_rows(entries) -> list[tuple]:
    return [(e["agent"], round(e["rating"], 9), round(e["lower"], 9), round(e["upper"], 9), e["matches"], e["wins"],
             e["draws"], e["losses"]) for e in entries]


def test_the_pool_is_one_bradley_terry_fit_on_the_union_of_the_verified_records(labs, tmp_path):
    db = tmp_path / "agg.db"
    report = aggregate(labs, db)
    by_lab = {peer["lab"]: peer for peer in report["peers"]}
    for name, lab in labs.items():
        count = len(lab.finished())
        assert by_lab[name] == {
            "address": lab.address, "lab": name, "key_id": load_key(lab.server.db.with_name("arena.db.lab-key")).key_id,
            "fetched": count, "rechecked": 0, "accepted": count, "rejected": {}, "error": ""}

    union = union_of_labs(labs)
    expected = compute_leaderboard(union, LeaderboardQuery(method="bradley_terry", bt=BTOptions(resamples=RESAMPLES)))
    assert report["leaderboard"]["matches"] == len(union) == expected.matches_counted
    assert board_rows(report["leaderboard"]["entries"]) == [
        (r.agent_name, round(r.rating, 9), round(r.lower, 9), round(r.upper, 9), r.matches, r.wins, r.draws, r.losses)
        for r in expected.rows]
    # Which labs each rating rests on: here, each agent's own lab, for every one of its matches.
    for entry in report["leaderboard"]["entries"]:
        assert entry["labs"] == {entry["agent"].split("/")[0]: entry["matches"]}

    # The ordinary leaderboard command rates the same pool from the aggregate's database.
    printed = cli("leaderboard", "--local", "--db", str(db), "--method", "bradley-terry", "--resamples",
                  str(RESAMPLES)).stdout
    row = re.compile(r"^\s+\d+\s+(\S+/\S+)\s+(-?\d+\.\d+)", re.MULTILINE)
    rows = {m.group(1): float(m.group(2)) for m in row.finditer(printed)}
    assert rows == {r.agent_name: round(r.rating, 2) for r in expected.rows}


def test_a_stopped_aggregator_resumes_from_its_cursors_and_counts_nothing_twice(labs, tmp_path):
    db = tmp_path / "agg.db"
    first = aggregate(labs, db, "--max-records", "3", "--page-size", "2")
    assert [p["fetched"] for p in first["peers"]] == [3, 3, 3]
    assert first["leaderboard"]["matches"] == 9

    labs["alpha"].play(seed=99)           # alpha plays on meanwhile
    totals = {name: len(lab.finished()) for name, lab in labs.items()}
    second = aggregate(labs, db, "--page-size", "2")
    assert {p["lab"]: (p["fetched"], p["accepted"], p["rejected"]) for p in second["peers"]} == {
        name: (total - 3, total - 3, {}) for name, total in totals.items()}
    assert second["leaderboard"]["matches"] == sum(totals.values())

    third = aggregate(labs, db)
    assert [(p["fetched"], p["accepted"]) for p in third["peers"]] == [(0, 0)] * 3
    assert board_rows(third["leaderboard"]["entries"]) == board_rows(second["leaderboard"]["entries"])
    assert third["leaderboard"]["matches"] == sum(totals.values())


def relabel(record: fpb.SignedMatchRecord, lab: str) -> fpb.MatchRecordBody:
    """The record's body as if `lab` had refereed it, its own agents in the seats."""
    body = fpb.MatchRecordBody.FromString(record.body)
    body.lab = lab
    for seat in body.seats:
        seat.agent_name = f"{lab}/{seat.agent_name.split('/', 1)[1]}"
    return body


def signed(body: fpb.MatchRecordBody, key: LabKey) -> str:
    data = encode_body(body)
    return fpb.SignedMatchRecord(body=data, signatures=[sign(data, key)]).SerializeToString().hex()


def start_peer(folder: Path, key_file: Path, records: list[str]) -> tuple[subprocess.Popen, str]:
    spec = folder / f"{key_file.stem}-records.json"
    spec.write_text(json.dumps({"lab_key": str(key_file), "records": records}))
    process = subprocess.Popen([sys.executable, "-m", "tests.federation.peer", str(spec)], stdout=subprocess.PIPE,
                               text=True, cwd=ROOT)
    line = process.stdout.readline()
    match = re.search(r"listening on (\S+)", line)
    assert match, f"the peer did not start: {line!r}"
    return process, match.group(1)


def test_attacks_are_rejected_with_their_reason_and_counted_and_nothing_valid_is_lost(labs, tmp_path):
    alpha = labs["alpha"].records()
    games = [fpb.MatchRecordBody.FromString(r.body).game_id for r in alpha]
    ttt = [r for r, g in zip(alpha, games) if g == "tic_tac_toe"]
    cli("federation", "init", "--lab", "mallory", "--key-file", str(tmp_path / "mallory.lab-key"))
    mallory = load_key(tmp_path / "mallory.lab-key")
    forger = LabKey.generate("alpha")                  # says it is alpha; is not

    valid = relabel(ttt[0], "mallory")
    changed_result = relabel(ttt[1], "mallory")
    changed_result.result.returns[:] = list(reversed(changed_result.result.returns))
    changed_result.result.ranks[:] = list(reversed(changed_result.result.ranks))
    changed_decision = relabel(ttt[2], "mallory")
    changed_decision.moves[1].action.action = changed_decision.moves[0].action.action
    conflicting = relabel(ttt[3], "mallory")
    conflicting.match_id = valid.match_id
    unknown_rules = relabel(alpha[games.index("pig")], "mallory")
    unknown_rules.rules_version = "0-not-this-one"
    impersonating = relabel(ttt[1], "mallory")
    impersonating.seats[1].agent_name = "alpha/mcts"   # claims alpha's agent played (and lost) on mallory's server
    tampered = fpb.SignedMatchRecord()
    tampered.CopyFrom(ttt[2])
    tampered_body = fpb.MatchRecordBody.FromString(tampered.body)
    tampered_body.result.returns[:] = list(reversed(tampered_body.result.returns))
    tampered.body = encode_body(tampered_body)          # alpha's signature kept

    # attack, the record mallory's peer serves, the rejection expected
    attacks = [
        ("changed result (re-signed by its lab)", signed(changed_result, mallory), "result_mismatch"),
        ("changed result (after alpha signed it)", tampered.SerializeToString().hex(), "bad_signature"),
        ("changed decision", signed(changed_decision, mallory), "illegal_move"),
        ("forged signature (a key that is not alpha's)", signed(fpb.MatchRecordBody.FromString(ttt[3].body), forger),
         "bad_signature"),
        ("replayed record (alpha's, relayed)", ttt[0].SerializeToString().hex(), "duplicate"),
        ("replayed record (served twice)", signed(valid, mallory), "duplicate"),
        ("conflicting record for one match id", signed(conflicting, mallory), "conflict"),
        ("unknown rules version", signed(unknown_rules, mallory), "unknown_rules_version"),
        ("another lab's agent, not countersigned", signed(impersonating, mallory), "foreign_agent"),
    ]
    records = [signed(valid, mallory)] + [record for _, record, _ in attacks]
    peer, address = start_peer(tmp_path, tmp_path / "mallory.lab-key", records)
    # An impostor publishing another key for alpha is refused before any of its records is read.
    impostor_key = forger.to_json() | {"private_key": forger.private_seed.hex()}
    (tmp_path / "impostor.lab-key").write_text(json.dumps(impostor_key))
    (tmp_path / "impostor.lab-key").chmod(0o600)
    impostor, impostor_address = start_peer(tmp_path, tmp_path / "impostor.lab-key", [ttt[0].SerializeToString().hex()])
    try:
        db = tmp_path / "agg.db"
        peers = [lab.address for lab in labs.values()] + [address, impostor_address]
        report = aggregate(labs, db, f"--peer-key={address}=any", f"--peer-key={impostor_address}=any",
                           "--trust", f"alpha={labs['alpha'].public_key_file}", peers=peers, check=False)
    finally:
        for process in (peer, impostor):
            process.kill()
            process.wait()
    by_address = {p["address"]: p for p in report["peers"]}
    seen = by_address[address]
    expected = {}
    for _, _, reason in attacks:
        expected[reason] = expected.get(reason, 0) + 1
    assert (seen["lab"], seen["fetched"], seen["accepted"], seen["rejected"]) == (
        "mallory", len(records), 1, expected)
    assert by_address[impostor_address]["error"].startswith("refused: it publishes key")
    assert by_address[impostor_address]["fetched"] == 0

    # Each rejection is noted with its reason and detail, in the order served.
    state = subprocess.run([sys.executable, "-c", (
        "import json, sys; from arena_server.federation.state import FederationState; "
        "print(json.dumps([(r['reason'], r['detail']) for r in FederationState(sys.argv[1]).rejections()]))"),
        str(tmp_path / "agg.db.federation")], capture_output=True, text=True, check=True, cwd=ROOT)
    noted = json.loads(state.stdout)
    assert [reason for reason, _ in noted] == [reason for _, _, reason in attacks]
    table = [(attack, reason, seen_reason, detail)
             for (attack, _, reason), (seen_reason, detail) in zip(attacks, noted)]
    print("\nattack | expected rejection | seen | detail")
    for row in table:
        print(" | ".join(row))

    # Nothing valid is lost: every lab's matches and mallory's one valid record are in the pool.
    labs_total = sum(len(lab.finished()) for lab in labs.values())
    assert report["leaderboard"]["matches"] == labs_total + 1
    assert [p["accepted"] for p in report["peers"][:3]] == [len(lab.finished()) for lab in labs.values()]
    agents = {e["agent"]: e["labs"] for e in report["leaderboard"]["entries"]}
    assert agents["mallory/random"] == {"mallory": 1}


def test_the_service_pages_in_end_order_and_serves_each_record_as_it_signed_it(labs):
    lab = labs["beta"]
    channel = grpc.insecure_channel(lab.address)
    stub = federation_pb2_grpc.FederationServiceStub(channel)
    md = [("authorization", f"Bearer {lab.key}")]
    info = stub.GetLabInfo(fpb.GetLabInfoRequest(), metadata=md)
    key = load_key(lab.server.db.with_name("arena.db.lab-key"))
    assert (info.lab, info.algorithm, info.public_key, info.key_id, info.record_format_version) == \
        ("beta", "ed25519", key.public_key, key.key_id, 1)

    served, cursor = [], ""
    while True:
        page = stub.ListRecords(fpb.ListRecordsRequest(cursor=cursor, page_size=1), metadata=md)
        if not page.records:
            assert page.next_cursor == cursor       # up to date: the same cursor again next time
            break
        assert len(page.records) == 1
        served += page.records
        cursor = page.next_cursor
    finished = sorted(lab.finished(), key=lambda m: (m.ended_at, m.match_id))
    assert [fpb.MatchRecordBody.FromString(r.body).match_id for r in served] == [m.match_id for m in finished]
    assert list(stub.ListRecords(fpb.ListRecordsRequest(page_size=1000), metadata=md).records) == served
    for record in served:
        match_id = fpb.MatchRecordBody.FromString(record.body).match_id
        assert stub.GetRecord(fpb.GetRecordRequest(match_id=match_id), metadata=md).record == record

    for call, request, metadata, code in (
        (stub.GetRecord, fpb.GetRecordRequest(match_id="m_nope"), md, grpc.StatusCode.NOT_FOUND),
        (stub.ListRecords, fpb.ListRecordsRequest(cursor="not a cursor"), md, grpc.StatusCode.INVALID_ARGUMENT),
        (stub.ListRecords, fpb.ListRecordsRequest(), [], grpc.StatusCode.UNAUTHENTICATED),
    ):
        with pytest.raises(grpc.RpcError) as refused:
            call(request, metadata=metadata)
        assert refused.value.code() == code

    from grpc_health.v1 import health_pb2, health_pb2_grpc
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    health = health_pb2_grpc.HealthStub(channel).Check(
        health_pb2.HealthCheckRequest(service="arena.v1.FederationService"))
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    listed = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
    assert "arena.v1.FederationService" in {s.name for r in listed for s in r.list_services_response.service}


def test_a_server_without_a_lab_key_does_not_federate(server_factory):
    plain = server_factory()
    stub = federation_pb2_grpc.FederationServiceStub(grpc.insecure_channel(plain.address))
    with pytest.raises(grpc.RpcError) as refused:
        stub.GetLabInfo(fpb.GetLabInfoRequest(), metadata=plain.metadata())
    assert refused.value.code() == grpc.StatusCode.UNIMPLEMENTED
