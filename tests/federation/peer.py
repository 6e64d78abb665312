"""A peer that serves a fixed list of signed records over FederationService, as a hostile or broken
lab would: its records are whatever the test wrote (forged, changed, replayed, conflicting), signed or
not. Run as its own process: python -m tests.federation.peer RECORDS.json; prints the port it listens
on, then serves until killed. RECORDS.json: {"lab_key": key file, "records": [record hex, ...]}."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import grpc

from arena.v1 import federation_pb2 as fpb
from arena.v1 import federation_pb2_grpc

from arena_server.federation.keys import load_key
from arena_server.federation.service import SERVICE_NAME, FederationService, lab_info


class ListSource:
    def __init__(self, info: fpb.GetLabInfoResponse, records: list[bytes]):
        self.info = info
        self.records = records

    def lab_info(self):
        return self.info

    def page(self, after, size):
        start = 0 if after is None else int(after[0]) + 1
        return [((float(i), f"r{i}"), self.records[i]) for i in range(start, min(start + size, len(self.records)))]

    def record(self, match_id):
        raise LookupError(f"no match {match_id!r}")

    def countersign(self, match_id, signature):
        raise LookupError(f"no match {match_id!r}")


async def allow(context) -> None:
    return None


async def main(path: str) -> None:
    spec = json.loads(Path(path).read_text())
    source = ListSource(lab_info(load_key(spec["lab_key"])), [bytes.fromhex(r) for r in spec["records"]])
    server = grpc.aio.server()
    federation_pb2_grpc.add_FederationServiceServicer_to_server(FederationService(source, allow), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(f"{SERVICE_NAME} listening on 127.0.0.1:{port}", flush=True)
    await server.wait_for_termination()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
