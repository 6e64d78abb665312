"""`arena-server federation init | info | trust | countersign | aggregate | leaderboard`: a lab's
signing key, the labs it trusts, its countersignatures of other labs' records, and the aggregator
that pulls signed match records from peers, checks them and rates their union.

    arena-server federation init --lab alpha              # alpha's key beside arena.db; serve picks it up
    arena-server federation trust --lab beta --public-key beta.lab-key.pub     # on alpha: beta may countersign
    arena-server federation countersign --peer alpha.example:50051 --key @alpha.key   # on beta
    arena-server federation aggregate --db agg.db --peers alpha.example:50051,beta.example:50051 \\
        --peer-key alpha.example:50051=@alpha.key --peer-key beta.example:50051=@beta.key
    arena-server federation leaderboard --db agg.db       # the pool, with the labs each rating rests on

docs/federation.md says how two labs join, what a record holds, and what a signature proves.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace

from .common import DEFAULT_DB, non_negative_int, positive_int


def add_parsers(sub) -> None:
    fed = sub.add_parser("federation", help="signed match records between labs: the lab key, the aggregator")
    fed_sub = fed.add_subparsers(dest="federation_command", required=True)

    init = fed_sub.add_parser("init", help="make the lab's Ed25519 signing key and name (beside the database)")
    init.add_argument("--lab", required=True, help="the lab's name: letters, digits, '-', '_', '.'")
    init.add_argument("--db", default=DEFAULT_DB, help="the server's database, beside which the key goes "
                                                       "(default %(default)s)")
    init.add_argument("--key-file", metavar="PATH", help="write the key here instead (serve --lab-key PATH then)")
    init.set_defaults(run=_init)

    info = fed_sub.add_parser("info", help="print the lab's name, key id and public key")
    info.add_argument("--db", default=DEFAULT_DB, help="the server's database (default %(default)s)")
    info.add_argument("--key-file", metavar="PATH", help="the key file (default: beside --db)")
    info.set_defaults(run=_info)

    trust = fed_sub.add_parser("trust", help="trust another lab's public key (for its countersignatures of this "
                                             "lab's records, and for the records it countersigns)")
    trust.add_argument("--lab", required=True, help="the lab's name")
    trust.add_argument("--public-key", required=True, metavar="FILE", help="the lab's .lab-key.pub file")
    trust.add_argument("--db", default=DEFAULT_DB, help="the server's database, beside which its federation "
                                                        "state file is (default %(default)s)")
    trust.add_argument("--state", metavar="PATH", help="the federation state file (default DB.federation)")
    trust.set_defaults(run=_trust)

    cosign = fed_sub.add_parser("countersign", help="replay another lab's records of matches this lab's agents "
                                                    "played there, and countersign those that pass")
    cosign.add_argument("--peer", required=True, metavar="ADDR", help="the refereeing lab's server (host:port)")
    cosign.add_argument("--key", default="", help="API key on the peer (spectate scope); may be @FILE "
                                                  "(default $ARENA_API_KEY)")
    cosign.add_argument("--trust", action="append", default=[], metavar="LAB=FILE",
                        help="trust this public key file for LAB instead of pinning the key the peer publishes on "
                             "first contact (repeatable)")
    cosign.add_argument("--played", action="append", default=[], metavar="FILE",
                        help="countersign only the matches listed here: the output of this lab's arena-agent (one "
                             "line per finished match: id, game, seat), or match ids one per line (repeatable); "
                             "without it, the referee's word that this lab's agent held the seat is taken")
    cosign.add_argument("--from-start", action="store_true",
                        help="consider every record of the peer again, not only those after this lab's cursor (e.g. "
                             "after refusing some as not_played; those countersigned before are recognised)")
    cosign.add_argument("--db", default=DEFAULT_DB, help="this lab's database, beside which its key and federation "
                                                         "state file are (default %(default)s)")
    cosign.add_argument("--key-file", metavar="PATH", help="this lab's key file (default: beside --db)")
    cosign.add_argument("--state", metavar="PATH", help="the federation state file (default DB.federation)")
    cosign.add_argument("--page-size", type=positive_int, default=100, help="records per ListRecords call")
    cosign.add_argument("--tls", action="store_true", help="connect over TLS with the system's roots")
    cosign.add_argument("--root-certificates", metavar="PEM", help="connect over TLS trusting these certificates")
    cosign.add_argument("--client-cert", metavar="PEM", help="mutual TLS: this client certificate chain")
    cosign.add_argument("--client-key", metavar="PEM", help="mutual TLS: the client certificate's private key")
    cosign.add_argument("--json", action="store_true", help="print the report as JSON")
    cosign.set_defaults(run=_countersign)

    agg = fed_sub.add_parser("aggregate", help="pull signed records from peers, verify and replay them, and rate "
                                               "the union in one Bradley-Terry pool")
    agg.add_argument("--peers", required=True, metavar="ADDR[,ADDR...]", help="the peers' addresses (host:port)")
    agg.add_argument("--db", required=True, metavar="AGG.db",
                     help="the aggregate's database: verified records become its matches")
    agg.add_argument("--state", metavar="PATH", help="the aggregator's own file: pinned keys, cursors, accepted "
                                                     "and rejected records (default AGG.db.federation)")
    agg.add_argument("--key", default="", help="API key (spectate scope) for every peer without its own --peer-key "
                                               "(default $ARENA_API_KEY)")
    agg.add_argument("--peer-key", action="append", default=[], metavar="ADDR=KEY",
                     help="a peer's API key; KEY may be @FILE (repeatable)")
    agg.add_argument("--trust", action="append", default=[], metavar="LAB=FILE",
                     help="trust this public key file (a lab's .lab-key.pub) for LAB instead of pinning the key its "
                          "peer publishes on first contact (repeatable)")
    agg.add_argument("--policy", action="append", default=[], choices=["cross-lab", "countersigned"],
                     help="count only cross-lab matches, or only countersigned records (repeatable)")
    agg.add_argument("--page-size", type=positive_int, default=100, help="records per ListRecords call")
    agg.add_argument("--max-records", type=positive_int, metavar="N",
                     help="stop after N records from each peer (the rest on the next run)")
    agg.add_argument("--tls", action="store_true", help="connect to the peers over TLS with the system's roots")
    agg.add_argument("--root-certificates", metavar="PEM", help="connect over TLS trusting these certificates")
    agg.add_argument("--client-cert", metavar="PEM", help="mutual TLS: this client certificate chain")
    agg.add_argument("--client-key", metavar="PEM", help="mutual TLS: the client certificate's private key")
    _board_args(agg)
    agg.add_argument("--json", action="store_true", help="print the report and the leaderboard as one JSON object")
    agg.set_defaults(run=_aggregate)

    board = fed_sub.add_parser("leaderboard", help="the aggregate's Bradley-Terry pool, with the labs each rating "
                                                   "rests on")
    board.add_argument("--db", required=True, metavar="AGG.db", help="the aggregate's database")
    board.add_argument("--state", metavar="PATH", help="the aggregator's file (default AGG.db.federation)")
    _board_args(board)
    board.add_argument("--json", action="store_true", help="print the leaderboard as JSON")
    board.set_defaults(run=_leaderboard)


def _board_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", default="", help="only this game (default: all games pooled)")
    p.add_argument("--resamples", type=non_negative_int, default=1000, help="bootstrap resamples (default %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default %(default)s)")


def _init(args) -> int:
    from ..federation.keys import KeyFileError, default_key_path, init_key, public_key_path

    path = Path(args.key_file) if args.key_file else default_key_path(args.db)
    try:
        key = init_key(path, args.lab)
    except (KeyFileError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"lab {key.lab}: key {key.key_id} written to {path} (mode 600; keep it secret)")
    print(f"public key in {public_key_path(path)}: give it to the labs and aggregators that will trust your records")
    return 0


def _info(args) -> int:
    from ..federation.keys import KeyFileError, default_key_path, load_key

    try:
        key = load_key(Path(args.key_file) if args.key_file else default_key_path(args.db))
    except KeyFileError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(key.public.to_json(), indent=2))
    return 0


def _trust_files(state, entries: list[str]) -> None:
    """--trust LAB=FILE entries into the state's trusted keys; SystemExit with one line when one is unusable."""
    from ..federation.keys import KeyFileError, load_public_key
    from ..federation.peers import trust

    for entry in entries:
        lab, _, file = entry.partition("=")
        try:
            key = load_public_key(file)
            if key.lab != lab:
                raise ValueError(f"{file} is the key of lab {key.lab}, not {lab}")
            trust(state, key, f"trusted from {file}")
        except (KeyFileError, ValueError) as e:
            raise SystemExit(f"error: --trust {entry}: {e}") from None


def _trust(args) -> int:
    from ..federation.keys import PublicLabKey
    from ..federation.state import FederationState, default_state_path

    path = args.state or default_state_path(args.db)
    state = FederationState(path)
    try:
        _trust_files(state, [f"{args.lab}={args.public_key}"])
        trusted = state.lab_key(args.lab)
    finally:
        state.close()
    print(f"lab {args.lab}: key {PublicLabKey(args.lab, trusted['public_key']).key_id} trusted "
          f"({trusted['source']}) in {path}")
    return 0


def _countersign(args) -> int:
    from arena.v1 import federation_pb2_grpc

    from ..federation.countersign import Countersigner, read_played
    from ..federation.keys import KeyFileError, default_key_path, load_key
    from ..federation.state import FederationState, default_state_path
    from .common import channel

    try:
        key = load_key(Path(args.key_file) if args.key_file else default_key_path(args.db))
    except KeyFileError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    api_key = _read_key(args.key or os.environ.get("ARENA_API_KEY", ""), "--key")
    if not api_key:
        print("error: no API key for the peer: pass --key KEY (or @FILE) or set ARENA_API_KEY", file=sys.stderr)
        return 2
    played = None
    if args.played:
        played = {}
        for file in args.played:
            try:
                played.update(read_played(Path(file).read_text()))
            except OSError as e:
                print(f"error: --played {file}: {e.strerror}", file=sys.stderr)
                return 2
    state = FederationState(args.state or default_state_path(args.db))
    try:
        _trust_files(state, args.trust)
        options = SimpleNamespace(server=args.peer, tls=args.tls, root_certificates=args.root_certificates,
                                  client_cert=args.client_cert, client_key=args.client_key)
        with channel(options) as peer_channel:
            stub = federation_pb2_grpc.FederationServiceStub(peer_channel)
            report = Countersigner(key, state, played).run(args.peer, stub, [("authorization", f"Bearer {api_key}")],
                                                           page_size=args.page_size, from_start=args.from_start)
    finally:
        state.close()
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        who = f"lab {report.lab}, key {report.key_id}" if report.lab else "lab unknown"
        print(f"peer {report.address} ({who}): {report.fetched} records read, {len(report.signed)} countersigned by "
              f"{key.lab}, {report.already} countersigned before, {len(report.refused)} refused, {report.skipped} "
              f"without an agent of {key.lab}" + (f"; {report.error}" if report.error else ""))
        for match_id in report.signed:
            print(f"  signed   {match_id}")
        for refused in report.refused:
            print(f"  refused  {refused['match'] or '(unreadable)'}  {refused['reason']}: {refused['detail']}")
    return 1 if report.error else 0


def _read_key(value: str, option: str) -> str:
    if value.startswith("@"):
        try:
            return Path(value[1:]).read_text().strip()
        except OSError as e:
            raise SystemExit(f"error: {option} {value}: cannot read {value[1:]}: {e.strerror}") from None
    return value


def _aggregate(args) -> int:
    from arena.v1 import federation_pb2_grpc

    from ..federation.aggregator import Aggregator
    from .common import channel

    peers = [p.strip() for p in args.peers.split(",") if p.strip()]
    keys = _peer_keys(args, peers)
    store, state, lock = _open(args.db, args.state, write=True)
    try:
        aggregator = Aggregator(store, state, policies=tuple(dict.fromkeys(args.policy)))
        try:
            _trust_files(state, args.trust)
        except SystemExit as e:
            print(e, file=sys.stderr)
            return 2
        reports = []
        for address in peers:
            options = SimpleNamespace(server=address, tls=args.tls, root_certificates=args.root_certificates,
                                      client_cert=args.client_cert, client_key=args.client_key)
            with channel(options) as peer_channel:
                reports.append(aggregator.pull(address, federation_pb2_grpc.FederationServiceStub(peer_channel),
                                               [("authorization", f"Bearer {keys[address]}")],
                                               page_size=args.page_size, max_records=args.max_records))
        board, behind = _board(store, state, args)
    finally:
        _close(store, state, lock)
    if args.json:
        print(json.dumps({"peers": [r.to_json() for r in reports], "leaderboard": _board_json(board, behind)},
                         indent=2))
    else:
        for r in reports:
            who = f"lab {r.lab}, key {r.key_id}" if r.lab else "lab unknown"
            print(f"peer {r.address} ({who}): {r.fetched} records fetched, "
                  + (f"{r.rechecked} awaiting a countersignature asked for again, " if r.rechecked else "")
                  + f"{r.accepted} accepted, {sum(r.rejected.values())} rejected" + (f"; {r.error}" if r.error else ""))
            for reason, count in sorted(r.rejected.items()):
                print(f"  rejected {count:4d}  {reason}")
        _print_board(board, behind)
    return 1 if any(r.error for r in reports) else 0


def _leaderboard(args) -> int:
    if not os.path.exists(args.db):
        print(f"error: no database file {args.db}", file=sys.stderr)
        return 2
    store, state, lock = _open(args.db, args.state, write=False)
    try:
        board, behind = _board(store, state, args)
    finally:
        _close(store, state, lock)
    if args.json:
        print(json.dumps(_board_json(board, behind), indent=2))
    else:
        _print_board(board, behind)
    return 0


def _peer_keys(args, peers: list[str]) -> dict[str, str]:
    keys = {}
    for entry in args.peer_key:
        address, _, key = entry.partition("=")
        if address not in peers or not key:
            raise SystemExit(f"error: --peer-key {entry}: give ADDR=KEY for one of the --peers")
        keys[address] = _read_key(key, f"--peer-key {address}=")
    default = args.key or os.environ.get("ARENA_API_KEY", "")
    for address in peers:
        keys.setdefault(address, default)
        if not keys[address]:
            raise SystemExit(f"error: no API key for peer {address}: pass --peer-key {address}=KEY or --key")
    return keys


def _open(database: str, state_path: str | None, *, write: bool):
    """The aggregate's store and the aggregator's file; to write, with an exclusive lock on the database
    so that no server and no other aggregator writes it meanwhile."""
    from ..federation.state import FederationState, default_state_path
    from ..store import Store

    lock = None
    if write and "://" not in database:          # a file; a PostgreSQL URL is shared by design
        Path(database).parent.mkdir(parents=True, exist_ok=True)
        lock = os.open(database, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(lock)
            raise SystemExit(f"error: {database} is in use by a server or another aggregator; stop it first") from None
    return Store(database), FederationState(state_path or default_state_path(database)), lock


def _close(store, state, lock) -> None:
    store.close()
    state.close()
    if lock is not None:
        os.close(lock)


def _board(store, state, args):
    from ..federation.aggregator import labs_behind, pool_leaderboard, pool_records

    board = pool_leaderboard(store, game_id=args.game, resamples=args.resamples, seed=args.seed)
    return board, labs_behind(pool_records(store), state)


def _board_json(board, behind) -> dict:
    return {"matches": board.matches_counted, "description": board.description, "entries": [
        {"rank": r.rank, "agent": r.agent_name, "rating": r.rating, "lower": r.lower, "upper": r.upper,
         "matches": r.matches, "wins": r.wins, "draws": r.draws, "losses": r.losses,
         "labs": dict(sorted(behind.get(r.agent_name, {}).items()))} for r in board.rows]}


def _print_board(board, behind) -> None:
    print(f"Bradley–Terry pool ({board.matches_counted} matches)")
    print(f"  {board.description}")
    print(f"{'rank':>4}  {'agent':<32} {'rating':>8} {'lower':>8} {'upper':>8} {'matches':>7} {'W-D-L':>11}  rests on")
    for r in board.rows:
        labs = ", ".join(f"{lab} {n}" for lab, n in sorted(behind.get(r.agent_name, {}).items()))
        print(f"{r.rank:>4}  {r.agent_name:<32} {r.rating:8.2f} {r.lower:8.2f} {r.upper:8.2f} {r.matches:7d} "
              f"{f'{r.wins}-{r.draws}-{r.losses}':>11}  {labs}")
