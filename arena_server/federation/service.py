"""FederationService: a lab's signed records of its finished matches, served to peers and aggregators.

Served by `arena-server serve` when the server has a lab key (`federation init` wrote one beside the
database, or `--lab-key PATH`). Records are paged in the order matches ended, (ended_at, match_id), as
the store lists finished matches; a running, pending or void match never has a record. A record is
built and signed the first time it is asked for, kept (state.FederationState), and served as kept
from then on, so every peer sees the same body for a match however often it asks. Countersign adds
another lab's countersignature (a lab whose agent held a seat, trusted by this lab's operator with
`federation trust`); the record is then served with it, after the lab's own signature.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol

import grpc
import structlog

from arena.v1 import federation_pb2 as fpb
from arena.v1 import federation_pb2_grpc

from .. import auth
from ..store import Store
from .keys import ALGORITHM, KeyFileError, LabKey, PublicLabKey, default_key_path, load_key
from .records import FORMAT_VERSION, SIGNING_PREFIX, lab_of, signed_record
from .state import FederationState, default_state_path

log = structlog.get_logger("arena.federation")
SERVICE_NAME = fpb.DESCRIPTOR.services_by_name["FederationService"].full_name
DEFAULT_PAGE, MAX_PAGE = 100, 1000
PAGE_BYTES = 1 << 20     # a page stops growing past this, well under any sane message size limit


class CountersignRefused(Exception):
    """A countersignature this server does not keep; `code` is the gRPC status to answer with."""

    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(message)
        self.code = code


class RecordSource(Protocol):
    """Where a FederationService's records come from (the lab's store, or a test's fixed list)."""

    def lab_info(self) -> fpb.GetLabInfoResponse: ...

    def page(self, after: tuple[float, str] | None, size: int) -> list[tuple[tuple[float, str], bytes]]:
        """Up to `size` (position, SignedMatchRecord bytes) after `after`, in position order."""

    def record(self, match_id: str) -> bytes:
        """One match's SignedMatchRecord bytes; LookupError (unknown) or ValueError (not finished)."""

    def countersign(self, match_id: str, signature: fpb.RecordSignature) -> tuple[bytes, bool]:
        """Keeps a countersignature; returns the record's bytes with it and whether the lab had
        countersigned before. LookupError, ValueError as record(); CountersignRefused."""


def lab_info(key: LabKey) -> fpb.GetLabInfoResponse:
    return fpb.GetLabInfoResponse(lab=key.lab, algorithm=ALGORITHM, public_key=key.public_key, key_id=key.key_id,
                                  record_format_version=FORMAT_VERSION)


class StoreRecordSource:
    """The records of the lab's own finished matches."""

    def __init__(self, store: Store, key: LabKey, state: FederationState):
        self.store = store
        self.key = key
        self.state = state

    def lab_info(self) -> fpb.GetLabInfoResponse:
        return lab_info(self.key)

    def page(self, after, size):
        out = []
        # The store lists finished matches in end order from the start (it has no "after" yet), so
        # this reads past the ones already served; fine for now, and the first thing to move into the
        # store's query when it grows one.
        for match in self.store.finished_matches():
            position = (match.ended_at, match.match_id)
            if after is not None and position <= after:
                continue
            out.append((position, self._signed(match)))
            if len(out) >= size:
                break
        return out

    def record(self, match_id):
        match = self.store.get_match(match_id)
        if match is None:
            raise LookupError(f"no match {match_id!r}")
        if match.status != "finished":
            raise ValueError(f"match {match_id} is {match.status}: only finished matches have records")
        return self._signed(match)

    def countersign(self, match_id, signature):
        record = fpb.SignedMatchRecord.FromString(self.record(match_id))
        lab = signature.lab
        if signature.role != fpb.SIGNATURE_ROLE_COUNTERSIGNATURE:
            raise CountersignRefused(grpc.StatusCode.INVALID_ARGUMENT, "the signature's role must be "
                                                                       "SIGNATURE_ROLE_COUNTERSIGNATURE")
        if lab == self.key.lab:
            raise CountersignRefused(grpc.StatusCode.INVALID_ARGUMENT, f"lab {lab} refereed this match: a lab "
                                                                       f"does not countersign its own records")
        trusted = self.state.lab_key(lab)
        if trusted is None:
            raise CountersignRefused(grpc.StatusCode.PERMISSION_DENIED, f"lab {lab!r} is not trusted here (its "
                                     f"operator must run `arena-server federation trust --lab {lab} --public-key FILE`)")
        body = fpb.MatchRecordBody.FromString(record.body)
        if lab not in {lab_of(seat.agent_name) for seat in body.seats}:
            raise CountersignRefused(grpc.StatusCode.FAILED_PRECONDITION, f"no agent of lab {lab} held a seat of "
                                                                          f"match {match_id}")
        key = PublicLabKey(lab, trusted["public_key"])
        if signature.key_id != key.key_id or not key.verify(signature.signature, SIGNING_PREFIX + record.body):
            raise CountersignRefused(grpc.StatusCode.INVALID_ARGUMENT, f"the countersignature does not verify over "
                                     f"the record's body with lab {lab}'s key {key.key_id} (it names key "
                                     f"{signature.key_id or '(none)'})")
        added = self.state.add_countersignature(match_id, lab, key.key_id, signature.signature)
        if added:
            log.info("record countersigned", match_id=match_id, lab=lab, key_id=key.key_id)
        return self.record(match_id), not added

    def _signed(self, match) -> bytes:
        """The record as signed and kept, with the countersignatures added since, in their order."""
        kept = self.state.signed_record(match.match_id)
        if kept is None:
            record = signed_record(self.store, match, self.key).SerializeToString()
            kept = self.state.keep_signed_record(match.match_id, match.ended_at, record)
        countersignatures = self.state.countersignatures(match.match_id)
        if not countersignatures:
            return kept
        record = fpb.SignedMatchRecord.FromString(kept)
        record.signatures.extend(fpb.RecordSignature(lab=c["lab"], key_id=c["key_id"], signature=c["signature"],
                                                     role=fpb.SIGNATURE_ROLE_COUNTERSIGNATURE)
                                 for c in countersignatures)
        return record.SerializeToString()


def encode_cursor(position: tuple[float, str]) -> str:
    return f"{position[0]!r} {position[1]}"


def decode_cursor(cursor: str) -> tuple[float, str] | None:
    """The position a cursor names; None for the start. ValueError when it is not a cursor."""
    if not cursor:
        return None
    ended, _, match_id = cursor.partition(" ")
    if not match_id:
        raise ValueError("not a cursor")
    return float(ended), match_id


class FederationService(federation_pb2_grpc.FederationServiceServicer):
    def __init__(self, source: RecordSource, authorize: Callable[[grpc.aio.ServicerContext], Awaitable]):
        self.source = source
        self.authorize = authorize

    async def GetLabInfo(self, request, context):
        await self.authorize(context)
        return self.source.lab_info()

    async def ListRecords(self, request, context):
        await self.authorize(context)
        if request.page_size < 0:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "page_size must be 0 (the default) or more")
        try:
            after = decode_cursor(request.cursor)
        except ValueError:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "invalid cursor: pass a next_cursor of an earlier "
                                                                  "ListRecords response, or none to start")
        size = min(request.page_size or DEFAULT_PAGE, MAX_PAGE)
        response = fpb.ListRecordsResponse(next_cursor=request.cursor)
        total = 0
        for position, data in self.source.page(after, size):
            if response.records and total + len(data) > PAGE_BYTES:
                break
            response.records.add().ParseFromString(data)
            response.next_cursor = encode_cursor(position)
            total += len(data)
        return response

    async def GetRecord(self, request, context):
        await self.authorize(context)
        try:
            data = self.source.record(request.match_id)
        except LookupError as e:
            await context.abort(grpc.StatusCode.NOT_FOUND, str(e.args[0]))
        except ValueError as e:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(e.args[0]))
        return fpb.GetRecordResponse(record=fpb.SignedMatchRecord.FromString(data))

    async def Countersign(self, request, context):
        await self.authorize(context)
        try:
            data, already = self.source.countersign(request.match_id, request.countersignature)
        except LookupError as e:
            await context.abort(grpc.StatusCode.NOT_FOUND, str(e.args[0]))
        except ValueError as e:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(e.args[0]))
        except CountersignRefused as e:
            await context.abort(e.code, str(e))
        return fpb.CountersignResponse(record=fpb.SignedMatchRecord.FromString(data), already_countersigned=already)


def serve_federation(server: grpc.aio.Server, store: Store, database: str, lab_key: str | None) -> list[str]:
    """Adds FederationService to a server on `database` that has a lab key (`lab_key`, else the file
    `federation init` wrote beside the database); returns the names of the services added (none
    without a key: the server then does not federate). KeyFileError when the key file is unusable."""
    path = Path(lab_key) if lab_key else default_key_path(database)
    if not path.exists():
        if lab_key:
            raise KeyFileError(f"no lab key file {path} (make one with `arena-server federation init`)")
        return []
    key = load_key(path)
    state_path = ":memory:" if database == ":memory:" else default_state_path(database)
    source = StoreRecordSource(store, key, FederationState(state_path))
    service = FederationService(source, lambda context: auth.require(store, context, "spectate"))
    federation_pb2_grpc.add_FederationServiceServicer_to_server(service, server)
    log.info("serving signed match records", lab=key.lab, key_id=key.key_id, key_file=str(path))
    return [SERVICE_NAME]
