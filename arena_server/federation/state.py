"""Federation rows the store has no table for yet, in a SQLite file of their own beside the database
(`<db>.federation`, or the aggregator's `--state PATH`).

TEMPORARY HOME: these tables belong in the store (arena_server/store), which is being rewritten with
versioned migrations; until then they live here, behind this one small class, so that moving them is
one migration plus replacing this class by store methods of the same names. Nothing outside
arena_server/federation reads this file.

A lab's server keeps:
- signed_records: each record it signed, with its own signature, exactly as it signed it (the body
  never changes once signed);
- countersignatures: the countersignatures other labs added to its records (Countersign), served
  after its own signature in the order they were added;
- lab_keys: the labs it trusts to countersign (`federation trust`), and, when it countersigns other
  labs' records (`federation countersign`), the keys of those labs, pinned or trusted as an
  aggregator's are;
- countersign_peers, countersign_notes: the servers it countersigns for, the cursor of their records
  already considered, and what it signed or refused, and why.
An aggregator keeps:
- lab_keys: the public key trusted for each lab, and where it came from (pinned on first contact with
  a peer, or given with --trust);
- peers: each peer's address, its lab, and the cursor of its records already processed;
- accepted: each record it accepted, keyed by (lab, match_id), with its digest, bytes, the peer it came
  from and the labs that countersigned it (the origin of every rating in the pool);
- rejections: each record it refused, with the reason code and detail, for the report;
- awaiting: records refused only for want of a countersignature (foreign_agent, policy_countersigned),
  asked for again on each pull until they are accepted or refused for another reason.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS signed_records (
    match_id TEXT PRIMARY KEY,
    ended_at REAL NOT NULL,
    record   BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS lab_keys (
    lab        TEXT PRIMARY KEY,
    public_key BLOB NOT NULL,
    source     TEXT NOT NULL,
    pinned_at  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS peers (
    address   TEXT PRIMARY KEY,
    lab       TEXT NOT NULL,
    cursor    TEXT NOT NULL DEFAULT '',
    last_pull REAL
);
CREATE TABLE IF NOT EXISTS accepted (
    lab             TEXT NOT NULL,
    match_id        TEXT NOT NULL,
    digest          TEXT NOT NULL,
    record          BLOB NOT NULL,
    peer            TEXT NOT NULL,
    countersigned_by TEXT NOT NULL DEFAULT '',
    accepted_at     REAL NOT NULL,
    PRIMARY KEY (lab, match_id)
);
CREATE TABLE IF NOT EXISTS countersignatures (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id  TEXT NOT NULL,
    lab       TEXT NOT NULL,
    key_id    TEXT NOT NULL,
    signature BLOB NOT NULL,
    added_at  REAL NOT NULL,
    UNIQUE (match_id, lab)
);
CREATE TABLE IF NOT EXISTS countersign_peers (
    address   TEXT PRIMARY KEY,
    lab       TEXT NOT NULL,
    cursor    TEXT NOT NULL DEFAULT '',
    last_pull REAL
);
CREATE TABLE IF NOT EXISTS countersign_notes (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    at       REAL NOT NULL,
    peer     TEXT NOT NULL,
    lab      TEXT NOT NULL,
    match_id TEXT NOT NULL,
    digest   TEXT NOT NULL,
    outcome  TEXT NOT NULL,
    detail   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS awaiting (
    peer       TEXT NOT NULL,
    lab        TEXT NOT NULL,
    match_id   TEXT NOT NULL,
    signatures TEXT NOT NULL,
    PRIMARY KEY (peer, lab, match_id)
);
CREATE TABLE IF NOT EXISTS rejections (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    at       REAL NOT NULL,
    peer     TEXT NOT NULL,
    lab      TEXT NOT NULL,
    match_id TEXT NOT NULL,
    digest   TEXT NOT NULL,
    reason   TEXT NOT NULL,
    detail   TEXT NOT NULL
);
"""


def default_state_path(database: str | Path) -> Path:
    from .keys import beside_database

    return beside_database(database, ".federation")


@dataclass(frozen=True)
class Accepted:
    lab: str
    match_id: str
    digest: str
    peer: str
    countersigned_by: tuple[str, ...]


class FederationState:
    def __init__(self, path: str | Path):
        self.path = str(path)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Writes inside are kept together or not at all (the aggregator's page: its records and cursor)."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # ---- a lab's server ------------------------------------------------------------------------------
    def signed_record(self, match_id: str) -> bytes | None:
        row = self._db.execute("SELECT record FROM signed_records WHERE match_id = ?", (match_id,)).fetchone()
        return row["record"] if row else None

    def keep_signed_record(self, match_id: str, ended_at: float, record: bytes) -> bytes:
        """Keeps the first record signed for a match and returns the one kept (a record never changes)."""
        self._db.execute("INSERT OR IGNORE INTO signed_records(match_id, ended_at, record) VALUES (?, ?, ?)",
                         (match_id, ended_at, record))
        return self.signed_record(match_id)

    def countersignatures(self, match_id: str) -> list[sqlite3.Row]:
        return self._db.execute("SELECT * FROM countersignatures WHERE match_id = ? ORDER BY seq",
                                (match_id,)).fetchall()

    def add_countersignature(self, match_id: str, lab: str, key_id: str, signature: bytes) -> bool:
        """Keeps a lab's countersignature of a record; False when that lab had countersigned it already."""
        added = self._db.execute(
            "INSERT OR IGNORE INTO countersignatures(match_id, lab, key_id, signature, added_at) VALUES (?, ?, ?, ?, ?)",
            (match_id, lab, key_id, signature, time.time()))
        return added.rowcount == 1

    def note_countersign(self, peer: str, lab: str, match_id: str, digest: str, outcome: str, detail: str) -> None:
        self._db.execute(
            "INSERT INTO countersign_notes(at, peer, lab, match_id, digest, outcome, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (time.time(), peer, lab, match_id, digest, outcome, detail))

    def countersign_notes(self) -> list[sqlite3.Row]:
        return self._db.execute("SELECT * FROM countersign_notes ORDER BY id").fetchall()

    # ---- keys (an aggregator's, and a lab's that countersigns or is countersigned) ------------------------
    def lab_key(self, lab: str) -> sqlite3.Row | None:
        return self._db.execute("SELECT * FROM lab_keys WHERE lab = ?", (lab,)).fetchone()

    def lab_keys(self) -> list[sqlite3.Row]:
        return self._db.execute("SELECT * FROM lab_keys ORDER BY lab").fetchall()

    def pin_lab_key(self, lab: str, public_key: bytes, source: str) -> None:
        self._db.execute("INSERT INTO lab_keys(lab, public_key, source, pinned_at) VALUES (?, ?, ?, ?)",
                         (lab, public_key, source, time.time()))

    # ---- peers: an aggregator's (table peers), a countersigning lab's (table countersign_peers) ------------
    def peer(self, address: str, table: str = "peers") -> sqlite3.Row | None:
        return self._db.execute(f"SELECT * FROM {_peers(table)} WHERE address = ?", (address,)).fetchone()

    def add_peer(self, address: str, lab: str, table: str = "peers") -> None:
        self._db.execute(f"INSERT INTO {_peers(table)}(address, lab) VALUES (?, ?)", (address, lab))

    def set_cursor(self, address: str, cursor: str, table: str = "peers") -> None:
        self._db.execute(f"UPDATE {_peers(table)} SET cursor = ?, last_pull = ? WHERE address = ?",
                         (cursor, time.time(), address))

    # ---- an aggregator -------------------------------------------------------------------------------
    def await_countersignature(self, peer: str, lab: str, match_id: str, signatures: str) -> None:
        """Notes a record refused for want of a countersignature, with a digest of the signatures it had."""
        self._db.execute("INSERT OR REPLACE INTO awaiting(peer, lab, match_id, signatures) VALUES (?, ?, ?, ?)",
                         (peer, lab, match_id, signatures))

    def awaiting(self, peer: str) -> list[sqlite3.Row]:
        return self._db.execute("SELECT * FROM awaiting WHERE peer = ? ORDER BY lab, match_id", (peer,)).fetchall()

    def stop_awaiting(self, lab: str, match_id: str, peer: str | None = None) -> None:
        """No longer asks for the record again: from `peer`, or from any peer (once accepted)."""
        if peer is None:
            self._db.execute("DELETE FROM awaiting WHERE lab = ? AND match_id = ?", (lab, match_id))
        else:
            self._db.execute("DELETE FROM awaiting WHERE peer = ? AND lab = ? AND match_id = ?", (peer, lab, match_id))

    def accepted(self, lab: str, match_id: str) -> Accepted | None:
        row = self._db.execute("SELECT * FROM accepted WHERE lab = ? AND match_id = ?", (lab, match_id)).fetchone()
        return _accepted(row) if row else None

    def all_accepted(self) -> list[Accepted]:
        return [_accepted(r) for r in self._db.execute("SELECT * FROM accepted ORDER BY lab, match_id")]

    def accept(self, lab: str, match_id: str, digest: str, record: bytes, peer: str,
               countersigned_by: list[str]) -> None:
        self._db.execute(
            "INSERT INTO accepted(lab, match_id, digest, record, peer, countersigned_by, accepted_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (lab, match_id, digest, record, peer, ",".join(sorted(countersigned_by)), time.time()))

    def reject(self, peer: str, lab: str, match_id: str, digest: str, reason: str, detail: str) -> None:
        self._db.execute(
            "INSERT INTO rejections(at, peer, lab, match_id, digest, reason, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (time.time(), peer, lab, match_id, digest, reason, detail))

    def rejections(self) -> list[sqlite3.Row]:
        return self._db.execute("SELECT * FROM rejections ORDER BY id").fetchall()


def _peers(table: str) -> str:
    if table not in ("peers", "countersign_peers"):
        raise ValueError(f"no peer table {table!r}")
    return table


def _accepted(row: sqlite3.Row) -> Accepted:
    return Accepted(row["lab"], row["match_id"], row["digest"], row["peer"],
                    tuple(filter(None, row["countersigned_by"].split(","))))
