"""Deliberately broken implementations of arena.v1, for the compliance suite to catch: a tiny grpc.aio
server in a thread of its own. `lax` welcomes every Hello (no key, a bad key, another agent's name,
protocol 2.0, or a first message that is not Hello: it waits for a Hello); `silent` reads and never
answers; `forger` is `lax` plus a FederationService whose second record was changed after it was signed.
None offers ArenaService, and only `forger` FederationService (the others answer UNIMPLEMENTED)."""

from __future__ import annotations

import asyncio
import secrets
import threading

import grpc
from google.protobuf import duration_pb2, timestamp_pb2

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import agent_service_pb2_grpc, federation_pb2 as fpb, federation_pb2_grpc, match_pb2


class BrokenAgentService(agent_service_pb2_grpc.AgentServiceServicer):
    def __init__(self, mode: str):
        self.mode = mode

    async def Connect(self, request_iterator, context):
        welcomed = False
        async for message in request_iterator:
            if self.mode == "silent":
                continue
            which = message.WhichOneof("message")
            if which == "hello" and not welcomed:
                welcomed = True
                hello = message.hello
                yield pb.ConnectResponse(welcome=pb.Welcome(
                    session_id=f"s_fake_{secrets.token_hex(4)}", resume_token=secrets.token_urlsafe(16),
                    protocol_version="1.0", agent_name=hello.agent.name or "fake-agent",
                    heartbeat_interval=duration_pb2.Duration(seconds=10),
                    rejected_games=[pb.RejectedGame(game_id=g.game_id, reason="no such game") for g in hello.games]))
            elif which == "heartbeat":
                now = timestamp_pb2.Timestamp()
                now.GetCurrentTime()
                yield pb.ConnectResponse(heartbeat=pb.Heartbeat(time=now))
            elif welcomed:
                yield pb.ConnectResponse(error=pb.Error(code=pb.ERROR_CODE_MALFORMED_MESSAGE, message="malformed"))


class ForgedFederation(federation_pb2_grpc.FederationServiceServicer):
    """Two records signed by the lab's key; the second's result was edited after signing."""

    def __init__(self):
        import hashlib

        key = Ed25519PrivateKey.generate()
        self.public_key = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.key_id = hashlib.sha256(self.public_key).hexdigest()[:16]
        self.records = []
        for n, (signed_returns, served_returns) in enumerate((([1, -1], [1, -1]), ([1, -1], [-1, 1]))):
            def body(returns, n=n):
                b = fpb.MatchRecordBody(format_version=1, lab="forger", match_id=f"m_forged_{n}", game_id="tic_tac_toe",
                                        rules_version="1", result=fpb.RecordResult(reason=match_pb2.END_REASON_NORMAL,
                                                                                   returns=returns))
                b.ended_at.FromSeconds(1_800_000_000 + n)
                return b.SerializeToString()
            signature = key.sign(b"arena.v1.MatchRecordBody\x00" + body(signed_returns))
            self.records.append(fpb.SignedMatchRecord(body=body(served_returns), signatures=[fpb.RecordSignature(
                lab="forger", key_id=self.key_id, signature=signature, role=fpb.SIGNATURE_ROLE_REFEREE)]))

    async def GetLabInfo(self, request, context):
        return fpb.GetLabInfoResponse(lab="forger", algorithm="ed25519", public_key=self.public_key, key_id=self.key_id,
                                      record_format_version=1)

    async def ListRecords(self, request, context):
        start = int(request.cursor or 0)
        page = self.records[start:start + max(1, request.page_size or 100)]
        return fpb.ListRecordsResponse(records=page, next_cursor=str(start + len(page)) if page else request.cursor)

    async def GetRecord(self, request, context):
        for record in self.records:
            if fpb.MatchRecordBody.FromString(record.body).match_id == request.match_id:
                return fpb.GetRecordResponse(record=record)
        await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")


class FakeServer:
    """Serves BrokenAgentService(mode) on a free loopback port until stop()."""

    def __init__(self, mode: str):
        self.mode = mode
        self.address = ""
        self._ready = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        assert self._ready.wait(10), "the fake server did not start"

    def _run(self):
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._start())
        self._loop.run_forever()

    async def _start(self):
        self._server = grpc.aio.server()
        agent_service_pb2_grpc.add_AgentServiceServicer_to_server(BrokenAgentService(self.mode), self._server)
        if self.mode == "forger":
            federation_pb2_grpc.add_FederationServiceServicer_to_server(ForgedFederation(), self._server)
        port = self._server.add_insecure_port("127.0.0.1:0")
        await self._server.start()
        self.address = f"127.0.0.1:{port}"
        self._ready.set()

    def stop(self):
        asyncio.run_coroutine_threadsafe(self._server.stop(0), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
