"""FederationService: the lab's name and public key, records paged from a cursor (the same cursor gives
the same records again), one record by match id (NOT_FOUND for an unknown match, FAILED_PRECONDITION
for one that is not finished), and every record's referee signature verifying against the published
key, over a body in its canonical encoding. A server that does not offer the service is reported as
such (SKIP), unless the operator requires federation."""

from __future__ import annotations

import hashlib
import re

import grpc
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from arena.v1 import federation_pb2 as fpb

from .context import Context
from .registry import Fail, Skip, check, require
from .wire import refusal, status_of

FED = "federation.proto FederationService"
SIGNED_PREFIX = b"arena.v1.MatchRecordBody\x00"
LAB_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
MAX_PAGES = 200


async def _call(ctx: Context, method: str, request):
    """A FederationService call with the read key; a server without the service is 'not offered'."""
    try:
        return await getattr(ctx.federation, method)(request, metadata=ctx.read, timeout=ctx.timeout)
    except grpc.aio.AioRpcError as e:
        if e.code() == grpc.StatusCode.UNIMPLEMENTED:
            if ctx.settings.require_federation:
                raise Fail(f"FederationService is not offered ({method}: UNIMPLEMENTED) and --require-federation "
                           "was given") from None
            raise Skip("not offered: the server has no FederationService (UNIMPLEMENTED)") from None
        raise


async def lab_info(ctx: Context) -> fpb.GetLabInfoResponse:
    if ctx._lab is None:
        try:
            ctx._lab = await _call(ctx, "GetLabInfo", fpb.GetLabInfoRequest())
        except grpc.aio.AioRpcError as e:
            raise Fail(f"GetLabInfo was refused: {status_of(e)}") from None
    return ctx._lab


async def all_records(ctx: Context, page_size: int = 1) -> tuple[list[fpb.SignedMatchRecord], list[str], int]:
    """Every record, paged from the empty cursor: (records, cursor after each page, pages read)."""
    records, cursors, cursor = [], [], ""
    for pages in range(1, MAX_PAGES + 1):
        try:
            page = await _call(ctx, "ListRecords", fpb.ListRecordsRequest(cursor=cursor, page_size=page_size))
        except grpc.aio.AioRpcError as e:
            raise Fail(f"ListRecords was refused: {status_of(e)}") from None
        require(len(page.records) <= page_size, f"a page of page_size {page_size} holds {len(page.records)} records")
        if not page.records:
            require(page.next_cursor == cursor, "an empty page's next_cursor is not the cursor asked with")
            return records, cursors, pages
        require(page.next_cursor, "a page with records has no next_cursor")
        records += page.records
        cursor = page.next_cursor
        cursors.append(cursor)
    return records, cursors, MAX_PAGES


def body_of(record: fpb.SignedMatchRecord) -> fpb.MatchRecordBody:
    try:
        return fpb.MatchRecordBody.FromString(record.body)
    except Exception as e:      # noqa: BLE001
        raise Fail(f"a record's body does not decode as MatchRecordBody: {e}") from None


@check("federation.lab_info", f"{FED}.GetLabInfo; GetLabInfoResponse",
       "GetLabInfo: a lab name, algorithm 'ed25519', a 32-byte public key, key_id = first 16 hex digits of "
       "SHA-256(public_key), a record_format_version")
async def get_lab_info(ctx: Context) -> str:
    info = await lab_info(ctx)
    require(LAB_NAME.match(info.lab), f"lab name {info.lab!r} breaks the rule (letters, digits, '-', '_', '.', <= 64)")
    require(info.algorithm == "ed25519", f"algorithm {info.algorithm!r}, expected 'ed25519'")
    require(len(info.public_key) == 32, f"the public key has {len(info.public_key)} bytes, expected 32")
    expected = hashlib.sha256(info.public_key).hexdigest()[:16]
    require(info.key_id == expected, f"key_id {info.key_id!r} is not SHA-256(public_key)[:16] = {expected!r}")
    require(info.record_format_version >= 1, "record_format_version is not set")
    return f"lab {info.lab!r}, ed25519 key {info.key_id}, record format {info.record_format_version}"


@check("federation.list_records", f"{FED}.ListRecords; ListRecordsRequest.cursor, ListRecordsResponse.next_cursor",
       "ListRecords pages (page_size 1) in end order to an empty page whose next_cursor is the cursor asked with; "
       "asking again from the same cursors gives the same records")
async def list_records(ctx: Context) -> str:
    await lab_info(ctx)
    records, cursors, pages = await all_records(ctx)
    if not records:
        raise Skip("the lab serves no record yet (no finished match to page through)")
    bodies = [body_of(r) for r in records]
    ids = [b.match_id for b in bodies]
    require(len(set(ids)) == len(ids), "a record came twice across pages")
    ends = [(b.ended_at.ToNanoseconds(), b.match_id) for b in bodies]
    require(ends == sorted(ends), "the records are not in the order the matches ended")
    again, _, _ = await all_records(ctx, page_size=max(1, min(1000, len(records))))
    require(list(again[:len(records)]) == list(records), "the same cursor gave other records (or other bytes) the second time")
    if len(cursors) >= 2:
        page = await _call(ctx, "ListRecords", fpb.ListRecordsRequest(cursor=cursors[0], page_size=1))
        require(page.records and page.records[0] == records[1], "resuming from the first page's cursor did not give the second record")
    return f"{len(records)} records over {pages} pages of 1, in end order; the same cursors gave the same bytes"


@check("federation.signatures", f"{FED}; RecordSignature.signature, SignedMatchRecord.body (canonical encoding)",
       "every record: first signature by the lab, role REFEREE, key_id of GetLabInfo, an Ed25519 signature of "
       "'arena.v1.MatchRecordBody' + 0x00 + body that verifies; the body decodes and re-encodes to the same bytes")
async def signatures(ctx: Context) -> str:
    info = await lab_info(ctx)
    records, _, _ = await all_records(ctx, page_size=100)
    if not records:
        raise Skip("the lab serves no record yet (no finished match to verify)")
    key = Ed25519PublicKey.from_public_bytes(info.public_key)
    for record in records[:200]:
        body = body_of(record)
        where = f"record of {body.match_id!r}"
        require(body.lab == info.lab, f"{where} names lab {body.lab!r}, not {info.lab!r}")
        require(body.format_version == info.record_format_version, f"{where} has format_version {body.format_version}")
        require(body.SerializeToString() == record.body, f"{where}: the body is not in its canonical encoding")
        require(record.signatures, f"{where} has no signature")
        first = record.signatures[0]
        require(first.role == fpb.SIGNATURE_ROLE_REFEREE and first.lab == info.lab and first.key_id == info.key_id,
                f"{where}: the first signature is {fpb.SignatureRole.Name(first.role)} by {first.lab!r} with key {first.key_id!r}")
        try:
            key.verify(first.signature, SIGNED_PREFIX + record.body)
        except InvalidSignature:
            raise Fail(f"{where}: the referee signature does not verify against the published key") from None
    return f"{min(len(records), 200)} records: referee signatures verify against key {info.key_id}, bodies canonical"


@check("federation.get_record", f"{FED}.GetRecord",
       "GetRecord of a listed match returns the listed record byte for byte; an unknown match -> NOT_FOUND")
async def get_record(ctx: Context) -> str:
    await lab_info(ctx)
    records, _, _ = await all_records(ctx, page_size=100)
    if not records:
        raise Skip("the lab serves no record yet")
    record = records[-1]
    match_id = body_of(record).match_id
    got = await _call(ctx, "GetRecord", fpb.GetRecordRequest(match_id=match_id))
    require(got.record == record, f"GetRecord({match_id}) differs from the listed record")
    status = await refusal(ctx.federation.GetRecord(fpb.GetRecordRequest(match_id="m_compliance_no_such_match"),
                                                    metadata=ctx.read, timeout=ctx.timeout))
    require(status is not None, "GetRecord of an unknown match was answered")
    require(status.code == grpc.StatusCode.NOT_FOUND, f"GetRecord of an unknown match: {status}, expected NOT_FOUND")
    return f"GetRecord({match_id}) is the listed record; an unknown match: NOT_FOUND"


@check("federation.unfinished_record", f"{FED}.GetRecord",
       "GetRecord of a running match -> FAILED_PRECONDITION")
async def unfinished_record(ctx: Context) -> str:
    await lab_info(ctx)
    game = await ctx.play_game()
    async with ctx.seated(game, purpose="a running match to ask the record of") as seat:
        started = await seat.match_started()
        match_id = started.match.match_id
        await seat.request(match_id)            # the match waits for us: it is running
        status = await refusal(ctx.federation.GetRecord(fpb.GetRecordRequest(match_id=match_id),
                                                        metadata=ctx.read, timeout=ctx.timeout))
        require(status is not None, f"GetRecord of the running match {match_id} returned a record")
        require(status.code == grpc.StatusCode.FAILED_PRECONDITION, f"{status}, expected FAILED_PRECONDITION")
        return f"running match {match_id}: FAILED_PRECONDITION ({status.details[:60]})"
