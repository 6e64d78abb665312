"""The golden vectors (tests/federation/vectors): the canonical encoding and the signatures are the
same today, in a fresh process with another hash seed, and in the TypeScript client."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from arena.v1 import federation_pb2 as fpb

from arena_server.federation.keys import PublicLabKey
from arena_server.federation.records import (
    SIGNING_PREFIX,
    RecordRejected,
    build_body,
    decode_body,
    encode_body,
    referee_signature,
    require_canonical,
)
from arena_server.federation.replay import replay

from ..conftest import ROOT
from .golden import KEY_FILE, NAMES, VECTORS, load, store_from_source, vector, vector_key


def test_every_case_has_a_committed_vector_and_the_test_key_is_the_committed_one():
    assert sorted(p.stem for p in VECTORS.glob("*.json")) == sorted(NAMES)
    committed = json.loads(KEY_FILE.read_text())
    key = vector_key()
    assert (committed["public_key"], committed["key_id"], committed["private_key"]) == \
        (key.public_key.hex(), key.key_id, key.private_seed.hex())
    assert bytes.fromhex(committed["signed_message_prefix_hex"]) == SIGNING_PREFIX == b"arena.v1.MatchRecordBody\x00"


@pytest.mark.parametrize("name", NAMES)
def test_the_source_encodes_and_signs_to_the_committed_bytes(name):
    v = load(name)
    assert vector(v["name"], v["description"], v["source"]) == v


@pytest.mark.parametrize("name", NAMES)
def test_the_committed_record_verifies_decodes_and_replays(name):
    v = load(name)
    record = fpb.SignedMatchRecord.FromString(bytes.fromhex(v["record_hex"]))
    assert record.body.hex() == v["body_hex"]
    body = decode_body(record)
    require_canonical(record, body)
    key = PublicLabKey(v["lab"], bytes.fromhex(v["public_key"]))
    assert referee_signature(record, body, key).signature.hex() == v["signature_hex"]
    assert replay(body) == v["expect"]["returns"]
    assert (body.lab, body.match_id, body.game_id, body.rules_version, str(body.seed), len(body.moves)) == \
        tuple(v["expect"][k] for k in ("lab", "match_id", "game_id", "rules_version", "seed", "moves"))
    # One byte changed anywhere in the body and the signature no longer holds.
    for index in (0, len(record.body) // 2, len(record.body) - 1):
        tampered = bytearray(record.body)
        tampered[index] ^= 0x01
        assert not key.verify(record.signatures[0].signature, SIGNING_PREFIX + bytes(tampered))


def test_vectors_cover_what_a_record_can_hold():
    bodies = {name: decode_body(fpb.SignedMatchRecord.FromString(bytes.fromhex(load(name)["record_hex"])))
              for name in NAMES}
    kinds = {name: {m.WhichOneof("move") for m in body.moves} for name, body in bodies.items()}
    assert "chance_outcome" in kinds["pig"] and kinds["tic_tac_toe"] == {"action"}
    assert "joint" in kinds["prisoners_dilemma"]
    bargain = bodies["bargain_with_probes"]
    assert any(m.action.HasField("message") for m in bargain.moves if m.WhichOneof("move") == "action")
    assert [p.HasField("answer") for p in bargain.result.probes] == [True, False]
    assert "🎲" in bargain.result.probes[0].question
    assert bodies["forfeit"].result.blamed_seats


HELPER = """
import json, sys
sys.path.insert(0, {root!r})
from tests.federation.golden import store_from_source
from arena_server.federation.records import build_body, encode_body
for path in sys.argv[1:]:
    v = json.load(open(path))
    store, match = store_from_source(v["source"])
    print(encode_body(build_body(store, match, v["lab"])).hex())
"""


@pytest.mark.parametrize("hash_seed", ["1", "4242"])
def test_the_encoding_is_the_same_in_another_process(hash_seed):
    files = [str(VECTORS / f"{name}.json") for name in NAMES]
    done = subprocess.run([sys.executable, "-c", HELPER.format(root=str(ROOT)), *files], capture_output=True,
                          text=True, env=dict(os.environ, PYTHONHASHSEED=hash_seed), timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [load(name)["body_hex"] for name in NAMES]


def test_a_body_that_is_not_canonical_is_refused():
    v = load("tic_tac_toe")
    store, match = store_from_source(v["source"])
    body = build_body(store, match, v["lab"])
    # The same fields, lab (2) written after match id (3): valid protobuf, not the canonical bytes.
    canonical = encode_body(body)
    lab = fpb.MatchRecordBody(lab=body.lab).SerializeToString()
    shuffled = canonical.replace(lab, b"", 1) + lab
    assert fpb.MatchRecordBody.FromString(shuffled) == body and shuffled != canonical
    record = fpb.SignedMatchRecord(body=shuffled)
    with pytest.raises(RecordRejected) as refused:
        require_canonical(record, decode_body(record))
    assert refused.value.reason == "not_canonical"


TYPESCRIPT_VERIFIER = ROOT / "clients" / "typescript" / "dist" / "verify_records.js"


def test_the_typescript_client_verifies_every_vector(typescript_bot, tmp_path):
    files = [str(VECTORS / f"{name}.json") for name in NAMES]
    done = subprocess.run(["node", str(TYPESCRIPT_VERIFIER), *files], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[1].rstrip(":") for line in lines] == NAMES
    assert all(line.startswith("ok ") and "canonical encoding reproduced" in line for line in lines)

    # A forged signature and a changed body are caught there too.
    v = load("pig")
    record = fpb.SignedMatchRecord.FromString(bytes.fromhex(v["record_hex"]))
    forged = fpb.SignedMatchRecord()
    forged.CopyFrom(record)
    forged.signatures[0].signature = bytes(64)
    changed = fpb.SignedMatchRecord()
    changed.CopyFrom(record)
    changed.body = record.body[:-1] + bytes([record.body[-1] ^ 1])
    bad = []
    for name, rec in (("forged", forged), ("changed", changed)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(v | {"name": name, "record_hex": rec.SerializeToString().hex(),
                                        "body_hex": rec.body.hex()}))
        bad.append(str(path))
    done = subprocess.run(["node", str(TYPESCRIPT_VERIFIER), *bad], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stdout.splitlines()[0].startswith("FAIL forged: the referee signature does not verify")
    assert done.stdout.splitlines()[1].startswith("FAIL changed: the referee signature does not verify")
