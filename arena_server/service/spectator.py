"""SpectatorService.Watch: a match's public events, stored then live. Never private views."""

from __future__ import annotations

from typing import TYPE_CHECKING

import grpc

from arena.v1 import spectator_service_pb2 as pb
from arena.v1 import spectator_service_pb2_grpc

from .. import auth, convert
from ..store import Store

if TYPE_CHECKING:
    from ..coordinator import Coordinator


class SpectatorService(spectator_service_pb2_grpc.SpectatorServiceServicer):
    def __init__(self, store: Store, coordinator: "Coordinator"):
        self.store = store
        self.coordinator = coordinator

    async def Watch(self, request, context):
        await auth.require(self.store, context, "spectate")
        if self.store.get_match(request.match_id) is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
        # Subscribe before reading the stored events so nothing falls between the two.
        queue = self.coordinator.subscribe(request.match_id)
        try:
            next_sequence = request.from_sequence
            for entry in self.store.read_log(request.match_id, public_only=True):
                if entry.kind == "event" and entry.data["sequence"] >= next_sequence:
                    yield pb.WatchResponse(event=convert.event_from_log(request.match_id, entry))
                    next_sequence = entry.data["sequence"] + 1
            while queue is not None:
                event = await queue.get()
                if event is None:
                    break
                if event.sequence >= next_sequence:
                    yield pb.WatchResponse(event=event)
                    next_sequence = event.sequence + 1
            record = self.store.get_match(request.match_id)
            if record.status in ("finished", "void"):
                yield pb.WatchResponse(ended=convert.match_info(record, reveal_seed=True))
        finally:
            if queue is not None:
                self.coordinator.unsubscribe(request.match_id, queue)

