"""Signed match records: a finished match of the store as a MatchRecordBody, its canonical bytes, the
lab's signature over them, and the checks a verifier makes before it believes a record.

The canonical encoding (stated in proto/arena/v1/federation.proto): the protobuf binary encoding of
a MatchRecordBody, a message without maps or Structs whose free-form JSON values are strings written
here once (canonical_json); every protobuf library encodes such a message to the same bytes. The
signature is Ed25519 over SIGNING_PREFIX + body. A verifier checks the signature over the bytes it
received and, to refuse bodies a careless or hostile signer encoded otherwise, that decoding and
encoding again gives the same bytes.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from arena.v1 import federation_pb2 as fpb
from arena.v1 import match_pb2
from google.protobuf import duration_pb2
from google.protobuf.message import DecodeError

from .. import convert
from ..store import MatchRecord, Store
from .keys import LabKey, PublicLabKey

FORMAT_VERSION = 1
SIGNING_PREFIX = b"arena.v1.MatchRecordBody\x00"

# Why a record is refused: the reason codes an aggregator counts, with what each means.
REASONS = {
    "malformed": "the record does not decode, or its body misses what a record must hold",
    "not_canonical": "the body is not in its canonical encoding (or comes from a newer record format)",
    "unsupported_format": "the body's format_version is one this verifier does not know",
    "unknown_lab": "no key is known for the lab that signed it (pin the lab's peer or pass --trust)",
    "bad_signature": "the refereeing lab's signature is missing, made with another key, or does not verify",
    "duplicate": "the same record was already accepted (replayed record)",
    "conflict": "another record with different content was already accepted for this match id",
    "foreign_agent": "a seat names another lab's agent, and that lab has not countersigned",
    "unknown_game": "the game is not one this verifier can replay",
    "unknown_rules_version": "the game's rules version is not the one this verifier's engine plays",
    "bad_parameters": "the game refuses the record's parameters or seat count",
    "chance_mismatch": "a chance outcome is not the one the record's seed draws",
    "illegal_move": "a move is not legal where the record plays it",
    "result_mismatch": "the result does not follow from the moves",
    "policy_cross_lab": "the aggregator counts only cross-lab matches and this one is not",
    "policy_countersigned": "the aggregator counts only countersigned records and this one is not",
}


class RecordRejected(Exception):
    """A record a verifier refuses: `reason` is one of REASONS, `detail` says what exactly."""

    def __init__(self, reason: str, detail: str):
        assert reason in REASONS, reason
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def canonical_json(value: Any) -> str:
    """JSON text with sorted keys and no whitespace (UTF-8, no NaN): how the body carries free-form
    values. Written once by the signer; verifiers keep the string as it is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def global_agent_name(lab: str, agent_name: str) -> str:
    """"lab/agent" for the lab's own agents; a name that already has a lab (a federated agent of
    another lab playing here) keeps it."""
    return agent_name if "/" in agent_name else f"{lab}/{agent_name}"


def lab_of(agent_name: str) -> str:
    return agent_name.split("/", 1)[0]


def digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


# ---- building and signing ------------------------------------------------------------------------------
def build_body(store: Store, match: MatchRecord, lab: str) -> fpb.MatchRecordBody:
    """The record body of a finished match of `store`. ValueError for a match that is not finished."""
    if match.status != "finished" or match.result is None or match.ended_at is None:
        raise ValueError(f"match {match.match_id} is {match.status}: only finished matches have records")
    body = fpb.MatchRecordBody(
        format_version=FORMAT_VERSION, lab=lab, match_id=match.match_id, tournament_id=match.tournament_id,
        game_id=match.game_id, rules_version=match.rules_version, parameters_json=canonical_json(match.parameters),
        seed=match.seed,
        seats=[fpb.RecordSeat(seat=p["seat"], agent_name=global_agent_name(lab, p["agent_name"]),
                              team=p.get("team", p["seat"]), house_agent=bool(p.get("house_agent")))
               for p in sorted(match.players, key=lambda p: p["seat"])],
        failure_policy=match_pb2.FailurePolicy(
            max_retries=match.failure_policy.get("max_retries", 0),
            on_failure=convert.FAILURE_ACTIONS.get(match.failure_policy.get("on_failure", "random_legal")),
            max_replays=match.failure_policy.get("max_replays", 0),
            illegal_move_forfeits=match.failure_policy.get("on_illegal") == "forfeit"),
        moves=[move for entry in store.read_log(match.match_id) if (move := _move(entry.kind, entry.data))],
        result=_result(match.result),
        created_at=convert.timestamp(match.created_at), ended_at=convert.timestamp(match.ended_at),
    )
    body.per_decision.CopyFrom(_duration(match.time_control.get("per_decision", 0.0)))
    return body


def _duration(seconds: float) -> duration_pb2.Duration:
    d = duration_pb2.Duration()
    d.FromNanoseconds(round(seconds * 1e9))
    return d


def _move(kind: str, data: dict[str, Any]) -> fpb.RecordedMove | None:
    """The recorded move of a log entry; None for entries that are not moves (events, penalties...)."""
    if kind == "chance":
        return fpb.RecordedMove(chance_outcome=data["action"])
    if kind == "action":
        return fpb.RecordedMove(action=fpb.SeatAction(seat=data["seat"], action=data["action"],
                                                      message=data.get("message")))
    if kind == "actions":
        messages = data.get("messages") or [None] * len(data["actions"])
        return fpb.RecordedMove(joint=fpb.JointAction(choices=[
            fpb.SeatAction(seat=seat, action=data["actions"][seat], message=messages[seat])
            for seat in sorted(data["seats"])]))
    return None


def _result(r: dict[str, Any]) -> fpb.RecordResult:
    return fpb.RecordResult(
        reason=convert.END_REASONS[r["reason"]], returns=r.get("returns", []), ranks=r.get("ranks", []),
        blamed_seats=r.get("blamed_seats", []), summary=r.get("summary", ""),
        details_json=canonical_json(r.get("details") or {}),
        seat_stats=[fpb.RecordSeatStats(**{k: s.get(k, 0) for k in SEAT_STATS}) for s in r.get("seat_stats", [])],
        probes=[fpb.RecordProbe(probe_id=p["probe_id"], seat=p["seat"], question=p["question"],
                                data_json=canonical_json(p.get("data") or {}), answer=p.get("answer"),
                                move=p.get("move", 0), asked=p.get("asked", True))
                for p in r.get("probes", [])],
    )


SEAT_STATS = ("seat", "illegal_actions", "parse_failures", "timeouts", "disconnects", "substituted_actions")


def encode_body(body: fpb.MatchRecordBody) -> bytes:
    """The canonical bytes. `deterministic` changes nothing for a map-free message; it is asked for so
    that a map added by mistake would at least be ordered."""
    return body.SerializeToString(deterministic=True)


def sign(body: bytes, key: LabKey, role: int = fpb.SIGNATURE_ROLE_REFEREE) -> fpb.RecordSignature:
    return fpb.RecordSignature(lab=key.lab, key_id=key.key_id, signature=key.sign(SIGNING_PREFIX + body), role=role)


def signed_record(store: Store, match: MatchRecord, key: LabKey) -> fpb.SignedMatchRecord:
    """A finished match of the lab's store, built, encoded and signed by the lab as referee."""
    body = encode_body(build_body(store, match, key.lab))
    return fpb.SignedMatchRecord(body=body, signatures=[sign(body, key)])


# ---- verifying -------------------------------------------------------------------------------------------
def decode_body(record: fpb.SignedMatchRecord) -> fpb.MatchRecordBody:
    """The record's body, if it decodes and is of a known format; else RecordRejected."""
    body = fpb.MatchRecordBody()
    try:
        body.ParseFromString(record.body)
    except DecodeError as e:
        raise RecordRejected("malformed", f"the body does not decode as a MatchRecordBody ({e})") from None
    if body.format_version != FORMAT_VERSION:
        raise RecordRejected("unsupported_format", f"format_version {body.format_version}; this verifier "
                                                   f"reads {FORMAT_VERSION}")
    if not body.lab or not body.match_id or not body.game_id or not body.seats or not body.HasField("result"):
        raise RecordRejected("malformed", "the body lacks its lab, match id, game, seats or result")
    texts = [("parameters_json", body.parameters_json), ("result.details_json", body.result.details_json)]
    texts += [(f"result.probes[{i}].data_json", p.data_json) for i, p in enumerate(body.result.probes)]
    for field_name, text in texts:
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            raise RecordRejected("malformed", f"{field_name} is not a JSON object")
    return body


def require_canonical(record: fpb.SignedMatchRecord, body: fpb.MatchRecordBody) -> None:
    """RecordRejected unless the body's bytes are its canonical encoding (checked after the signature,
    so that bytes changed after signing are reported as a bad signature)."""
    if encode_body(body) != record.body:
        raise RecordRejected("not_canonical", "decoding and encoding the body again gives other bytes")


def referee_signature(record: fpb.SignedMatchRecord, body: fpb.MatchRecordBody,
                      key: PublicLabKey) -> fpb.RecordSignature:
    """The refereeing lab's valid signature of the record under `key` (that lab's trusted key), or
    RecordRejected("bad_signature")."""
    mine = [s for s in record.signatures if s.lab == body.lab and s.role == fpb.SIGNATURE_ROLE_REFEREE]
    if not mine:
        raise RecordRejected("bad_signature", f"no referee signature of lab {body.lab!r}")
    for signature in mine:
        if signature.key_id == key.key_id and key.verify(signature.signature, SIGNING_PREFIX + record.body):
            return signature
    named = ", ".join(sorted({s.key_id or "(none)" for s in mine}))
    raise RecordRejected("bad_signature", f"lab {body.lab}'s signature does not verify with its key "
                                          f"{key.key_id} (signature names key {named})")


def check_signed(record: fpb.SignedMatchRecord, keys: dict[str, PublicLabKey]) -> fpb.MatchRecordBody:
    """The body of a record that decodes, whose refereeing lab's key is in `keys` and signed it, and
    whose body is canonical; else RecordRejected (malformed, unsupported_format, unknown_lab,
    bad_signature, not_canonical). What an aggregator and a countersigning lab check first."""
    body = decode_body(record)
    if body.lab not in keys:
        raise RecordRejected("unknown_lab", f"no key is known for lab {body.lab!r}")
    referee_signature(record, body, keys[body.lab])
    require_canonical(record, body)
    return body


def seat_labs(body: fpb.MatchRecordBody) -> set[str]:
    """The labs whose agents held the seats; RecordRejected("malformed") for a seat without a lab."""
    labs = set()
    for seat in body.seats:
        if "/" not in seat.agent_name:
            raise RecordRejected("malformed", f"seat {seat.seat}'s agent {seat.agent_name!r} has no lab")
        labs.add(lab_of(seat.agent_name))
    return labs


def signatures_digest(record: fpb.SignedMatchRecord) -> str:
    """A digest of a record's signatures, to tell whether any was added since it was last seen."""
    return hashlib.sha256(b"".join(s.SerializeToString() for s in record.signatures)).hexdigest()


def countersignature(record: fpb.SignedMatchRecord, key: PublicLabKey) -> fpb.RecordSignature | None:
    """The lab's countersignature of the record when it holds one that verifies under `key`."""
    for s in record.signatures:
        if (s.role == fpb.SIGNATURE_ROLE_COUNTERSIGNATURE and s.lab == key.lab and s.key_id == key.key_id
                and key.verify(s.signature, SIGNING_PREFIX + record.body)):
            return s
    return None


def countersigners(record: fpb.SignedMatchRecord, keys: dict[str, PublicLabKey]) -> set[str]:
    """Labs other than the referee whose countersignature verifies under the key trusted for them."""
    return {lab for lab in {s.lab for s in record.signatures} if lab in keys and countersignature(record, keys[lab])}
