"""Federation: each lab signs records of its finished matches; an aggregator verifies, replays and
rates the union (docs/federation.md).

- `keys`: the lab's Ed25519 key and name (`arena-server federation init`).
- `records`: a finished match as a MatchRecordBody, its canonical bytes, signing and verifying.
- `replay`: replays a record's match with this server's engine and checks its result.
- `service`: FederationService, served by `arena-server serve` when the server has a lab key; it also
  keeps the countersignatures other labs hand it (Countersign).
- `peers`: other labs' keys, trusted from a file or pinned on first contact with a peer.
- `countersign`: a lab replays another lab's records of matches its agents played there, and
  countersigns those that pass (`arena-server federation countersign`).
- `state`: the federation rows the store has no table for yet, in their own SQLite file.
- `importer`: verified records into the aggregate store as finished matches.
- `aggregator`: pulls from peers, checks each record, counts rejections, rates the pool.
"""
