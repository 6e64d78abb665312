"""A minimal agent on the raw generated stubs, scripted to misbehave on purpose.

It runs in a thread with the synchronous gRPC API so tests can drive it step by step and
inspect everything the server sent."""

from __future__ import annotations

import queue
import threading
from typing import Callable

import grpc

from arena.v1 import agent_service_pb2 as pb
from arena.v1 import agent_service_pb2_grpc

# A policy maps a DecisionRequest to a Decision, or to None to stay silent.
Policy = Callable[[pb.DecisionRequest], "pb.Decision | None"]


class ScriptedAgent:
    def __init__(self, address: str, key: str, name: str, games: list[str], policy: Policy, *,
                 join_ladder: bool = True, capacity: int = 1, protocol_version: str = "1.0", resume_token: str = "",
                 capabilities: tuple[str, ...] = ()):
        self.received: list[pb.ConnectResponse] = []
        self.ended = threading.Event()
        self.welcome: pb.Welcome | None = None
        self.failure: grpc.RpcError | None = None
        self._outbox: queue.Queue = queue.Queue()
        self._policy = policy
        self._channel = grpc.insecure_channel(address)
        stub = agent_service_pb2_grpc.AgentServiceStub(self._channel)
        hello = pb.Hello(protocol_version=protocol_version, agent=pb.AgentInfo(name=name, version="test"),
                         games=[pb.GameOffer(game_id=g) for g in games], max_concurrent_matches=capacity,
                         join_ladder=join_ladder, resume_token=resume_token, capabilities=capabilities)
        self._outbox.put(pb.ConnectRequest(hello=hello))
        metadata = [("authorization", f"Bearer {key}")] if key else []
        self._call = stub.Connect(self._requests(), metadata=metadata)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def send(self, message: pb.ConnectRequest) -> None:
        self._outbox.put(message)

    def _requests(self):
        while True:
            message = self._outbox.get()
            if message is None:
                return
            yield message

    def _read(self) -> None:
        try:
            for response in self._call:
                self.received.append(response)
                kind = response.WhichOneof("message")
                if kind == "welcome":
                    self.welcome = response.welcome
                elif kind == "decision_request":
                    decision = self._policy(response.decision_request)
                    if decision is not None:
                        self.send(pb.ConnectRequest(decision=decision))
                elif kind == "match_ended":
                    self.ended.set()
        except grpc.RpcError as e:
            self.failure = e
        finally:
            self.ended.set()

    def of_kind(self, kind: str) -> list:
        return [getattr(r, kind) for r in self.received if r.WhichOneof("message") == kind]

    def close(self) -> None:
        self._outbox.put(None)
        self._call.cancel()
        self._channel.close()
