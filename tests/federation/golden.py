"""Golden vectors of the signed match record: a few records with their canonical bytes and signatures
under a fixed test key, so that any implementation (this server after a protobuf upgrade, another
Python, the TypeScript client, a lab's own verifier) can check it encodes and verifies as we do.

Each vectors/*.json holds:
- "source": the match as a lab's store holds it (its record and its log entries), frozen;
- "body_hex": the canonical MatchRecordBody built from it; "record_hex": the SignedMatchRecord;
- "signed_message_hex" is not stored: it is b"arena.v1.MatchRecordBody\\0" + body;
- "signature_hex": the Ed25519 signature by the key of vector_key.json (a test key, public);
- "expect": a few fields of the decoded body, for readers in other languages to compare.

Regenerate (only when the record format changes on purpose; then also bump FORMAT_VERSION):
    .venv/bin/python -m tests.federation.golden --regenerate
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from arena.v1 import federation_pb2 as fpb

from arena_server.federation.keys import LabKey
from arena_server.federation.records import SIGNING_PREFIX, build_body, encode_body, sign
from arena_server.store import MatchRecord, Store

VECTORS = Path(__file__).with_name("vectors")
KEY_FILE = Path(__file__).with_name("vector_key.json")
TEST_LAB = "vectors-lab"
# A key anyone may know: it signs these vectors and nothing else.
TEST_SEED = hashlib.sha256(b"arena federation golden vectors: a public test key, never a lab's").digest()

PROBES = [
    {"probe_id": "judgement-1", "seat": 0, "question": "¿Quién ganará? 🎲 (answer with a seat number)",
     "data": {"metric": "judgement", "turn": 1, "weights": [0.5, 0.25]}, "answer": "seat 0 — probably", "move": 1,
     "asked": True},
    {"probe_id": "judgement-2", "seat": 1, "question": "Who wins?", "data": {}, "answer": None, "move": 2,
     "asked": False},
]

CASES = [
    # name, game, preset, seed, extra arguments of play_into_store, what the case exercises
    ("tic_tac_toe", "tic_tac_toe", None, 11, {}, "sequential moves, no chance, a normal end"),
    ("pig", "pig", "gtbench_code", 12, {}, "chance outcomes drawn from the seed"),
    ("prisoners_dilemma", "iterated_prisoners_dilemma", "gtbench_2p", 13, {},
     "simultaneous rounds (joint actions) and a random stop by chance"),
    ("bargain_with_probes", "negotiation", "llmarena_bargain", 14, {"probes": PROBES},
     "messages said with actions, and probes with non-ASCII text, a missing answer and a seat not asked"),
    ("forfeit", "tic_tac_toe", None, 15, {"forfeit_after": 3}, "an abnormal end: a forfeit on time"),
]

NAMES = [case[0] for case in CASES]


def load(name: str) -> dict:
    return json.loads((VECTORS / f"{name}.json").read_text())


def load_body(name: str) -> fpb.MatchRecordBody:
    """The decoded body of a committed vector."""
    return fpb.MatchRecordBody.FromString(bytes.fromhex(load(name)["body_hex"]))


def vector_key() -> LabKey:
    return LabKey.from_seed(TEST_LAB, TEST_SEED)


def store_from_source(source: dict) -> tuple[Store, MatchRecord]:
    """A lab's store holding just the source's match."""
    store = Store(":memory:")
    match = MatchRecord(**source["match"])
    store.add_match(MatchRecord(**{**source["match"], "status": "running", "result": None, "ended_at": None}))
    for seq, entry in enumerate(source["log"]):
        store.append_log(match.match_id, seq, entry["kind"], entry["data"], public=True)
    store.finish_match(match.match_id, match.status, match.result, match.ended_at)
    return store, store.get_match(match.match_id)


def vector(name: str, description: str, source: dict) -> dict:
    key = vector_key()
    store, match = store_from_source(source)
    body = build_body(store, match, key.lab)
    data = encode_body(body)
    signature = sign(data, key)
    record = fpb.SignedMatchRecord(body=data, signatures=[signature])
    return {
        "name": name, "description": description, "lab": key.lab, "public_key": key.public_key.hex(),
        "key_id": key.key_id, "source": source, "body_hex": data.hex(), "signature_hex": signature.signature.hex(),
        "record_hex": record.SerializeToString().hex(),
        "expect": {"lab": body.lab, "match_id": body.match_id, "game_id": body.game_id,
                   "rules_version": body.rules_version, "seed": str(body.seed),
                   "seats": [s.agent_name for s in body.seats],
                   "moves": len(body.moves), "returns": list(body.result.returns)},
    }


def sources() -> list[tuple[str, str, dict]]:
    """Plays the cases afresh (only to regenerate: the committed sources are frozen)."""
    from .matches import play_into_store

    out = []
    for number, (name, game, preset, seed, extra, description) in enumerate(CASES):
        store = Store(":memory:")
        match = play_into_store(store, f"m_vector{number}", game, ["random", "vector-bot"], seed=seed, preset=preset,
                                **extra)
        log = [{"kind": e.kind, "data": e.data} for e in store.read_log(match.match_id)]
        out.append((name, description, {"match": vars(match), "log": log}))
    return out


def regenerate() -> None:
    VECTORS.mkdir(exist_ok=True)
    key = vector_key()
    KEY_FILE.write_text(json.dumps(
        key.public.to_json() | {"private_key": key.private_seed.hex(),
                                "signed_message": "the bytes 'arena.v1.MatchRecordBody', one zero byte, then the body",
                                "signed_message_prefix_hex": SIGNING_PREFIX.hex()}, indent=2) + "\n")
    for name, description, source in sources():
        (VECTORS / f"{name}.json").write_text(json.dumps(vector(name, description, source), indent=2,
                                                         ensure_ascii=False) + "\n")
        print(f"wrote {VECTORS / name}.json")


if __name__ == "__main__":
    if sys.argv[1:] != ["--regenerate"]:
        raise SystemExit("usage: python -m tests.federation.golden --regenerate")
    regenerate()
