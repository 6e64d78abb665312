"""Each check the aggregator makes, one record at a time, in process: what it accepts, and each way a
record is refused (with its reason code), from records built on the golden vectors' matches."""

from __future__ import annotations

import json
import os
import stat

import pytest

from arena.v1 import federation_pb2 as fpb
from arena.v1 import match_pb2

from arena_server.federation.aggregator import Aggregator, labs_behind, pool_leaderboard, pool_records
from arena_server.federation.importer import import_record, log_entries, match_record
from arena_server.federation.keys import KeyFileError, LabKey, init_key, load_key, load_public_key, public_key_path
from arena_server.federation.records import REASONS, RecordRejected, encode_body, sign
from arena_server.federation.service import lab_info
from arena_server.federation.state import FederationState
from arena_server.referee.replay import replay_match
from arena_server.store import Store

from .golden import NAMES, load_body

ALPHA = LabKey.from_seed("alpha", bytes(range(32)))
BETA = LabKey.from_seed("beta", bytes(range(1, 33)))
MALLORY = LabKey.from_seed("alpha", bytes(range(2, 34)))     # claims to be alpha, with its own key


def body_of(name: str, lab: str = "alpha") -> fpb.MatchRecordBody:
    """A golden vector's body, relabelled as a match of `lab` (its agents too)."""
    body = load_body(name)
    body.lab = lab
    for seat in body.seats:
        seat.agent_name = f"{lab}/{seat.agent_name.split('/', 1)[1]}"
    return body


def signed(body: fpb.MatchRecordBody, key: LabKey = ALPHA, *cosigners: LabKey) -> fpb.SignedMatchRecord:
    data = encode_body(body)
    return fpb.SignedMatchRecord(body=data, signatures=[sign(data, key)] + [
        sign(data, c, fpb.SIGNATURE_ROLE_COUNTERSIGNATURE) for c in cosigners])


@pytest.fixture
def aggregator(tmp_path):
    store, state = Store(tmp_path / "agg.db"), FederationState(tmp_path / "agg.db.federation")
    agg = Aggregator(store, state)
    agg.trust(ALPHA.public, "test")
    agg.trust(BETA.public, "test")
    yield agg
    store.close()
    state.close()


def reason(agg: Aggregator, record: fpb.SignedMatchRecord) -> str:
    with agg.state.transaction():
        return agg.consider("peer", record)


def test_a_valid_record_is_imported_as_a_replayable_finished_match(aggregator):
    assert reason(aggregator, signed(body_of("pig"))) == ""
    match = aggregator.store.get_match("alpha/m_vector1")
    assert match.status == "finished" and match.agent_names == ["alpha/random", "alpha/vector-bot"]
    assert replay_match(aggregator.store, match.match_id) == match.result["returns"]   # the referee's own replay
    assert [m.match_id for m in pool_records(aggregator.store)] == ["alpha/m_vector1"]
    assert aggregator.state.accepted("alpha", "m_vector1").peer == "peer"


def test_every_golden_vector_is_accepted(aggregator):
    for name in NAMES:
        assert reason(aggregator, signed(body_of(name))) == "", name
    board = pool_leaderboard(aggregator.store, resamples=50)
    assert board.matches_counted == len(NAMES)
    assert labs_behind(pool_records(aggregator.store), aggregator.state)["alpha/random"] == {"alpha": 5}


def test_the_same_record_again_is_a_duplicate_and_another_one_for_the_same_match_a_conflict(aggregator):
    body = body_of("tic_tac_toe")
    assert reason(aggregator, signed(body)) == ""
    assert reason(aggregator, signed(body)) == "duplicate"
    other = body_of("tic_tac_toe")
    other.created_at.seconds += 1           # still a valid match, but other content under the same id
    assert reason(aggregator, signed(other)) == "conflict"
    assert [r["reason"] for r in aggregator.state.rejections()] == ["duplicate", "conflict"]
    assert aggregator.store.get_match("alpha/m_vector0").created_at == body.created_at.ToNanoseconds() / 1e9


@pytest.mark.parametrize("change, expected", [
    ("returns", "result_mismatch"),
    ("ranks", "result_mismatch"),
    ("summary", "result_mismatch"),
    ("details", "result_mismatch"),
    ("decision_illegal", "illegal_move"),
    ("decision_legal", "result_mismatch"),
    ("out_of_turn", "illegal_move"),
    ("extra_move", "illegal_move"),
    ("chance", "chance_mismatch"),
    ("seed", "chance_mismatch"),
    ("rules_version", "unknown_rules_version"),
    ("game", "unknown_game"),
    ("parameters", "bad_parameters"),
    ("forfeit_returns", "result_mismatch"),
    ("forfeit_said_normal", "result_mismatch"),
    ("normal_said_forfeit", "result_mismatch"),
    ("format_version", "unsupported_format"),
])
def test_a_record_whose_result_does_not_follow_is_refused_even_when_its_lab_signed_it(aggregator, change, expected):
    name = {"chance": "pig", "seed": "pig", "forfeit_returns": "forfeit", "forfeit_said_normal": "forfeit",
            "details": "prisoners_dilemma", "decision_legal": "prisoners_dilemma"}.get(change, "tic_tac_toe")
    body = body_of(name)
    result = body.result
    if change == "returns":
        result.returns[:] = list(reversed(result.returns))
        result.ranks[:] = list(reversed(result.ranks))
    elif change == "ranks":
        result.ranks[:] = [2, 2]
    elif change == "summary":
        result.summary = "a summary the moves do not give"
    elif change == "details":
        details = json.loads(result.details_json)
        details["tampered"] = True
        result.details_json = json.dumps(details, sort_keys=True, separators=(",", ":"))
    elif change == "decision_illegal":
        body.moves[1].action.action = body.moves[0].action.action      # the square taken by the first move
    elif change == "decision_legal":
        choice = next(m for m in body.moves if m.WhichOneof("move") == "joint").joint.choices[0]
        choice.action = 1 - choice.action                               # defect for cooperate, or back
    elif change == "out_of_turn":
        body.moves[1].action.seat = body.moves[0].action.seat
    elif change == "extra_move":
        body.moves.append(body.moves[-1])
    elif change == "chance":
        first = next(m for m in body.moves if m.WhichOneof("move") == "chance_outcome")
        first.chance_outcome = (first.chance_outcome % 6) + 1 if first.chance_outcome else 1
    elif change == "seed":
        body.seed += 1
    elif change == "rules_version":
        body.rules_version = "999"
    elif change == "game":
        body.game_id = "chess"
    elif change == "parameters":
        body.parameters_json = json.dumps({"board_size": 4})
    elif change == "forfeit_returns":
        result.returns[:] = list(reversed(result.returns))
        result.ranks[:] = list(reversed(result.ranks))
    elif change == "forfeit_said_normal":
        result.reason = match_pb2.END_REASON_NORMAL
        del result.blamed_seats[:]
    elif change == "normal_said_forfeit":
        result.reason = match_pb2.END_REASON_FORFEIT_TIMEOUT
        result.blamed_seats[:] = [1]
    elif change == "format_version":
        body.format_version = 2
    assert reason(aggregator, signed(body)) == expected
    rejection = aggregator.state.rejections()[-1]
    assert rejection["reason"] == expected and rejection["detail"]
    assert aggregator.store.get_match(f"alpha/{body.match_id}") is None


def test_signatures_bind_the_record_to_its_lab_and_key(aggregator):
    body = body_of("tic_tac_toe")
    assert reason(aggregator, signed(body, MALLORY)) == "bad_signature"           # another key, same lab name
    record = signed(body)
    record.body = record.body[:-1] + bytes([record.body[-1] ^ 1])                 # changed after signing
    assert reason(aggregator, record) == "bad_signature"
    unsigned = fpb.SignedMatchRecord(body=encode_body(body))
    assert reason(aggregator, unsigned) == "bad_signature"
    assert reason(aggregator, signed(body_of("tic_tac_toe", "gamma"), LabKey.from_seed("gamma", bytes(32)))) \
        == "unknown_lab"
    assert reason(aggregator, fpb.SignedMatchRecord(body=b"\xff\xff\xff")) == "malformed"
    assert reason(aggregator, signed(body)) == ""           # and the genuine record is still accepted


def test_an_agent_of_another_lab_needs_that_labs_countersignature(aggregator):
    body = body_of("tic_tac_toe")
    body.seats[1].agent_name = "beta/strong-bot"            # alpha claims beta's agent lost on alpha's server
    assert reason(aggregator, signed(body)) == "foreign_agent"
    assert reason(aggregator, signed(body, ALPHA, MALLORY)) == "foreign_agent"   # not beta's key
    assert reason(aggregator, signed(body, ALPHA, BETA)) == ""
    assert aggregator.state.accepted("alpha", body.match_id).countersigned_by == ("beta",)
    behind = labs_behind(pool_records(aggregator.store), aggregator.state)
    assert behind["beta/strong-bot"] == {"alpha": 1, "beta": 1}


def test_policies_count_only_cross_lab_or_countersigned_records(tmp_path):
    store, state = Store(tmp_path / "agg.db"), FederationState(tmp_path / "agg.db.federation")
    agg = Aggregator(store, state, policies=("cross-lab", "countersigned"))
    agg.trust(ALPHA.public, "test")
    agg.trust(BETA.public, "test")
    assert reason(agg, signed(body_of("tic_tac_toe"))) == "policy_cross_lab"
    cross = body_of("pig")
    cross.seats[1].agent_name = "beta/bot"
    assert reason(agg, signed(cross, ALPHA, BETA)) == ""
    with pytest.raises(ValueError, match="unknown policies"):
        Aggregator(store, state, policies=("trust-me",))
    assert {"policy_cross_lab", "policy_countersigned"} <= set(REASONS)


def test_an_import_cut_short_is_completed_and_never_doubled(tmp_path):
    store = Store(tmp_path / "agg.db")
    body = body_of("pig")
    match = match_record(body)
    # What a crash in the middle of an import leaves: the match (void) and part of its log.
    store.add_match(match.__class__(**{**vars(match), "status": "void", "result": None, "ended_at": None}))
    entries = log_entries(body, match)
    for seq, (kind, data, public) in enumerate(entries[:5]):
        store.append_log(match.match_id, seq, kind, data, public)
    assert import_record(store, body) == match.match_id
    assert import_record(store, body) == match.match_id       # again: nothing written twice
    assert [e.kind for e in store.read_log(match.match_id)] == [kind for kind, _, _ in entries]
    assert store.get_match(match.match_id).status == "finished"
    other = body_of("pig")
    other.seed += 1
    with pytest.raises(RecordRejected) as refused:
        import_record(store, other)
    assert refused.value.reason == "conflict"


def test_the_lab_key_file_is_private_and_kept(tmp_path):
    path = tmp_path / "arena.db.lab-key"
    key = init_key(path, "alpha")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_key(path) == key and load_key(path).sign(b"x") == key.sign(b"x")
    assert load_public_key(public_key_path(path)) == key.public
    assert "private" not in public_key_path(path).read_text()
    with pytest.raises(KeyFileError, match="already exists"):
        init_key(path, "alpha")
    os.chmod(path, 0o644)
    with pytest.raises(KeyFileError, match="readable by other users"):
        load_key(path)
    with pytest.raises(ValueError, match="invalid lab name"):
        init_key(tmp_path / "other", "lab/with/slash")


class PeerStub:
    """A FederationService stub over a list of records (pages by index), for pulls in process."""

    def __init__(self, key: LabKey, records: list[fpb.SignedMatchRecord]):
        self.key = key
        self.records = records

    def GetLabInfo(self, request, metadata=None):
        return lab_info(self.key)

    def ListRecords(self, request, metadata=None):
        start = int(request.cursor or 0)
        page = self.records[start:start + request.page_size]
        return fpb.ListRecordsResponse(records=page, next_cursor=str(start + len(page)) if page else request.cursor)


def test_a_pull_killed_between_the_store_and_its_notes_resumes_without_counting_twice(tmp_path):
    store, state = Store(tmp_path / "agg.db"), FederationState(tmp_path / "agg.db.federation")
    agg = Aggregator(store, state)
    stub = PeerStub(ALPHA, [signed(body_of(name)) for name in ("tic_tac_toe", "pig", "prisoners_dilemma")])
    # The process dies when it notes the first page's cursor: the page's matches are already in the
    # store, its notes (accepted records, cursor) are not.
    real_set_cursor = state.set_cursor

    def killed(address, cursor):
        raise KeyboardInterrupt("killed")

    state.set_cursor = killed
    with pytest.raises(KeyboardInterrupt):
        agg.pull("alpha:1", stub, [], page_size=2)
    assert len(pool_records(store)) == 2 and state.all_accepted() == [] and state.peer("alpha:1")["cursor"] == ""
    state.set_cursor = real_set_cursor

    report = agg.pull("alpha:1", stub, [], page_size=2)
    assert (report.fetched, report.accepted, dict(report.rejected), report.error) == (3, 3, {}, "")
    logs = {m.match_id: len(store.read_log(m.match_id)) for m in pool_records(store)}
    assert logs == {f"alpha/m_vector{i}": len(body_of(name).moves) + 2        # start, the moves, end: once each
                    for i, name in enumerate(("tic_tac_toe", "pig", "prisoners_dilemma"))}
    again = agg.pull("alpha:1", stub, [], page_size=2)
    assert (again.fetched, again.accepted) == (0, 0)
    assert state.rejections() == []
    store.close()
    state.close()


def test_a_peer_whose_lab_changes_its_key_is_refused(tmp_path):
    store, state = Store(tmp_path / "agg.db"), FederationState(tmp_path / "agg.db.federation")
    agg = Aggregator(store, state)
    assert agg.pull("alpha:1", PeerStub(ALPHA, []), []).error == ""
    assert state.lab_key("alpha")["source"] == "pinned on first contact with alpha:1"
    refused = agg.pull("alpha:1", PeerStub(MALLORY, [signed(body_of("pig"), MALLORY)]), [])
    assert refused.error.startswith("refused: it publishes key") and refused.fetched == 0
    renamed = agg.pull("alpha:1", PeerStub(BETA, []), [])
    assert renamed.error == "refused: the peer was lab alpha and now says it is lab beta"
    store.close()
    state.close()


def test_a_lab_serves_only_finished_matches_and_keeps_what_it_signed(tmp_path):
    from arena_server.federation.service import StoreRecordSource

    from .matches import play_into_store

    store = Store(tmp_path / "lab.db")
    play_into_store(store, "m_done", "tic_tac_toe", ["random", "bot"], seed=3)
    running = store.get_match("m_done").__class__(**{**vars(store.get_match("m_done")), "match_id": "m_running",
                                                     "status": "running", "result": None, "ended_at": None})
    store.add_match(running)
    source = StoreRecordSource(store, ALPHA, FederationState(tmp_path / "lab.db.federation"))
    page = source.page(None, 10)
    assert [position[1] for position, _ in page] == ["m_done"]
    assert source.page(page[0][0], 10) == []
    with pytest.raises(ValueError, match="is running"):
        source.record("m_running")
    with pytest.raises(LookupError):
        source.record("m_unknown")
    # The record is signed once and kept: asked again, the same bytes, even after the key file changed.
    later = StoreRecordSource(store, BETA, FederationState(tmp_path / "lab.db.federation"))
    assert later.record("m_done") == source.record("m_done") == page[0][1]


@pytest.mark.parametrize("field", ["parameters", "details", "probe_data"])
def test_json_fields_that_are_not_json_objects_are_malformed(aggregator, field):
    body = body_of("bargain_with_probes")
    if field == "parameters":
        body.parameters_json = "[1, 2]"
    elif field == "details":
        body.result.details_json = "{not json"
    else:
        body.result.probes[0].data_json = ""
    assert reason(aggregator, signed(body)) == "malformed"
    assert reason(aggregator, signed(body_of("bargain_with_probes"))) == ""


def test_an_action_id_no_engine_could_hold_is_an_illegal_move(aggregator):
    body = body_of("tic_tac_toe")
    body.moves[0].action.action = 2**40
    assert reason(aggregator, signed(body)) == "illegal_move"
