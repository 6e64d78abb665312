"""API keys: issued once, stored as SHA-256 hashes, checked on every call.

A key looks like `ak_<key_id>_<secret>`. The key id is public (logs, revocation); only the hash
of the whole key is stored. Scopes: `play` (connect as the key's agent), `spectate` (read and
watch), `admin` (everything).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

import grpc

from .store import Store

SCOPES = ("play", "spectate", "admin")
AGENT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")


@dataclass(frozen=True)
class Principal:
    key_id: str
    agent_name: str | None
    scopes: frozenset[str]

    def allows(self, scope: str) -> bool:
        return "admin" in self.scopes or scope in self.scopes or (scope == "spectate" and "play" in self.scopes)


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def validate_agent_name(name: str) -> None:
    if not AGENT_NAME.match(name):
        raise ValueError(
            f"invalid agent name {name!r}: use letters, digits, '-', '_' or '.', at most 64 characters"
        )


def validate_federated_agent_name(name: str, own_lab: str | None) -> None:
    """A plain agent name, or the name "lab/agent" of another lab's agent that plays on this server
    with a federated key (docs/federation.md): exactly one '/', both parts valid names, and the lab
    not this server's own (`own_lab`, None when the server has no lab key): its own agents have
    plain names, which the records name "own_lab/agent"."""
    if "/" not in name:
        validate_agent_name(name)
        return
    lab, _, agent = name.partition("/")
    if "/" in agent or not AGENT_NAME.match(lab) or not AGENT_NAME.match(agent):
        raise ValueError(f"invalid federated agent name {name!r}: use lab/agent, each part letters, digits, "
                         "'-', '_' or '.', at most 64 characters")
    if lab == own_lab:
        raise ValueError(f"{name!r} names an agent of this server's own lab {own_lab}: give its plain name "
                         f"{agent!r} (its records name it {name})")


def create_key(store: Store, *, agent_name: str | None, scopes: list[str], label: str = "",
               federated: bool = False, own_lab: str | None = None) -> tuple[str, str]:
    """Issues a key; returns (key, key_id). The key is not recoverable afterwards. With `federated`,
    the agent may also be another lab's, "lab/agent" (validate_federated_agent_name)."""
    unknown = set(scopes) - set(SCOPES)
    if unknown or not scopes:
        raise ValueError(f"scopes must be among {', '.join(SCOPES)}; got {', '.join(scopes) or 'none'}")
    if "play" in scopes and not agent_name:
        raise ValueError("a key with the play scope must name its agent")
    if agent_name:
        if federated:
            validate_federated_agent_name(agent_name, own_lab)
        else:
            validate_agent_name(agent_name)
        store.ensure_agent(agent_name)
    key_id = secrets.token_hex(4)
    key = f"ak_{key_id}_{secrets.token_urlsafe(24)}"
    store.add_key(key_id, _hash(key), agent_name, scopes, label)
    return key, key_id


def authenticate(store: Store, key: str) -> Principal | None:
    parts = key.split("_", 2)
    if len(parts) != 3 or parts[0] != "ak":
        return None
    row = store.get_key(parts[1])
    if row is None or not hmac.compare_digest(row["key_hash"], _hash(key)):
        return None
    return Principal(row["key_id"], row["agent_name"], frozenset(row["scopes"].split(",")))


def key_from_metadata(metadata) -> str | None:
    for name, value in metadata or ():
        if name == "authorization" and value.lower().startswith("bearer "):
            return value[7:].strip()
    return None


async def require(store: Store, context: grpc.aio.ServicerContext, scope: str) -> Principal:
    """The caller's principal, or the call is aborted with a status that says what is missing."""
    key = key_from_metadata(context.invocation_metadata())
    if key is None:
        await context.abort(
            grpc.StatusCode.UNAUTHENTICATED,
            "missing API key: send metadata 'authorization: Bearer <key>' (create one with `arena-server keys create`)",
        )
    principal = authenticate(store, key)
    if principal is None:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown or revoked API key")
    if not principal.allows(scope):
        await context.abort(
            grpc.StatusCode.PERMISSION_DENIED,
            f"this API key lacks the '{scope}' scope (it has: {', '.join(sorted(principal.scopes))})",
        )
    return principal
