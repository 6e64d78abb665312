"""The lab's identity: an Ed25519 signing key and a lab name, kept in a file beside the database.

`arena-server federation init --lab NAME` writes two small JSON files:
- `<db>.lab-key` (mode 0600): {"lab", "algorithm": "ed25519", "private_key": 32-byte seed in hex,
  "public_key", "key_id"}; the server signs its records with it and must keep it secret;
- `<db>.lab-key.pub`: the same without the private key, to hand to other labs (an aggregator takes
  it with `--trust lab=FILE` instead of trusting the key a peer publishes on first contact).

The key signs match records and nothing else (records.SIGNING_PREFIX separates what it signs).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..auth import AGENT_NAME

ALGORITHM = "ed25519"


class KeyFileError(Exception):
    """A key file is missing, unreadable or malformed; the message says which and why, in one line."""


def key_id(public_key: bytes) -> str:
    """The key's public id: the first 16 hex digits of SHA-256 of the raw 32-byte public key."""
    return hashlib.sha256(public_key).hexdigest()[:16]


def validate_lab_name(name: str) -> None:
    """Lab names follow the rule of agent names (no '/', which separates lab and agent)."""
    if not AGENT_NAME.match(name):
        raise ValueError(f"invalid lab name {name!r}: use letters, digits, '-', '_' or '.', at most 64 characters")


def beside_database(database: str | Path, suffix: str) -> Path:
    """A file that goes with the server's database, where its admin key file goes: beside a SQLite
    file, or named after a PostgreSQL database in the working directory."""
    from ..server import admin_key_path

    admin = admin_key_path(str(database))
    return admin.with_name(admin.name.removesuffix(".admin-key") + suffix)


def default_key_path(database: str | Path) -> Path:
    return beside_database(database, ".lab-key")


def lab_beside_database(database: str | Path) -> str | None:
    """The name of the lab whose key `federation init` wrote beside the database; None when there is none."""
    path = default_key_path(database)
    if public_key_path(path).exists():
        return load_public_key(public_key_path(path)).lab
    return load_public_key(path).lab if path.exists() else None


def public_key_path(key_path: str | Path) -> Path:
    key_path = Path(key_path)
    return key_path.with_name(key_path.name + ".pub")


@dataclass(frozen=True)
class PublicLabKey:
    """A lab's name and public key: what a verifier needs."""

    lab: str
    public_key: bytes

    @property
    def key_id(self) -> str:
        return key_id(self.public_key)

    def verify(self, signature: bytes, message: bytes) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.public_key).verify(signature, message)
        except (InvalidSignature, ValueError):
            return False
        return True

    def to_json(self) -> dict:
        return {"lab": self.lab, "algorithm": ALGORITHM, "public_key": self.public_key.hex(), "key_id": self.key_id}


@dataclass(frozen=True)
class LabKey(PublicLabKey):
    """The lab's signing key (with its public half)."""

    private_seed: bytes = field(default=b"", repr=False)

    @classmethod
    def from_seed(cls, lab: str, seed: bytes) -> LabKey:
        private = Ed25519PrivateKey.from_private_bytes(seed)
        public = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return cls(lab=lab, public_key=public, private_seed=seed)

    @classmethod
    def generate(cls, lab: str) -> LabKey:
        return cls.from_seed(lab, os.urandom(32))

    @property
    def public(self) -> PublicLabKey:
        return PublicLabKey(self.lab, self.public_key)

    def sign(self, message: bytes) -> bytes:
        return Ed25519PrivateKey.from_private_bytes(self.private_seed).sign(message)


def init_key(path: str | Path, lab: str, *, overwrite: bool = False) -> LabKey:
    """Makes a new key for `lab` and writes it to `path` (0600) and its public half to `path`.pub.
    Refuses to replace an existing key unless `overwrite` (records signed with the old key would no
    longer match the key the lab publishes)."""
    validate_lab_name(lab)
    path = Path(path)
    if path.exists() and not overwrite:
        raise KeyFileError(f"{path} already exists: a lab keeps its key (records it signed name it); "
                           f"remove the file first to make a new one")
    key = LabKey.generate(lab)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Created with mode 0600 from the start, so the secret is never readable by others, not even briefly.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(key.to_json() | {"private_key": key.private_seed.hex()}, out, indent=2)
        out.write("\n")
    os.chmod(path, 0o600)      # when an existing file was overwritten, its old mode stayed
    public_key_path(path).write_text(json.dumps(key.public.to_json(), indent=2) + "\n")
    return key


def load_key(path: str | Path) -> LabKey:
    """The lab key in `path`; KeyFileError when it is missing, readable by others, or malformed."""
    path = Path(path)
    data = _read_json(path)
    mode = path.stat().st_mode & 0o077
    if mode:
        raise KeyFileError(f"{path} is readable by other users (mode {path.stat().st_mode & 0o777:o}); "
                           f"chmod 600 it: it holds the lab's private key")
    try:
        key = LabKey.from_seed(data["lab"], bytes.fromhex(data["private_key"]))
        validate_lab_name(key.lab)
    except KeyError as e:
        raise KeyFileError(f"{path} is not a lab key file (no {e.args[0]!r})") from None
    except (TypeError, ValueError) as e:
        raise KeyFileError(f"{path} is not a lab key file ({e})") from None
    if data.get("public_key") not in (None, key.public_key.hex()):
        raise KeyFileError(f"{path}: its public_key does not belong to its private_key")
    return key


def load_public_key(path: str | Path) -> PublicLabKey:
    """A lab's public key from a `.lab-key.pub` file (or from its private key file)."""
    path = Path(path)
    data = _read_json(path)
    try:
        if data.get("algorithm", ALGORITHM) != ALGORITHM:
            raise ValueError(f"algorithm {data['algorithm']!r}, not {ALGORITHM}")
        public = PublicLabKey(data["lab"], bytes.fromhex(data["public_key"]))
        validate_lab_name(public.lab)
        if len(public.public_key) != 32:
            raise ValueError("an Ed25519 public key has 32 bytes")
    except KeyError as e:
        raise KeyFileError(f"{path} is not a lab public key file (no {e.args[0]!r})") from None
    except (TypeError, ValueError) as e:
        raise KeyFileError(f"{path} is not a lab public key file ({e})") from None
    return public


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except OSError as e:
        raise KeyFileError(f"cannot read {path}: {e.strerror}") from None
    except ValueError:
        raise KeyFileError(f"{path} is not a lab key file (not JSON)") from None
    if not isinstance(data, dict):
        raise KeyFileError(f"{path} is not a lab key file")
    return data
