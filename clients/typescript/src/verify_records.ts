#!/usr/bin/env node
// verify-records: checks signed match records (arena.v1.SignedMatchRecord, proto/arena/v1/federation.proto)
// from JavaScript, with nothing but the proto files, protobufjs and Node's own Ed25519: for each golden
// vector file given (tests/federation/vectors/*.json), it
//   - decodes the record and verifies its referee signature over "arena.v1.MatchRecordBody" + 0x00 + body
//     with the lab's public key (and that the key id is the first 16 hex digits of SHA-256 of the key);
//   - checks that a body with one byte changed no longer verifies;
//   - decodes the body as arena.v1.MatchRecordBody, encodes it again and gets the same bytes (the
//     canonical encoding is reproduced by a second protobuf library);
//   - compares the decoded fields with the vector's "expect".
// Prints one line per vector; exit status 0 when every vector passes, 1 otherwise, 2 on bad usage.

import { createHash, createPublicKey, verify } from "node:crypto";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";

import * as protobuf from "protobufjs";

const SIGNING_PREFIX = Buffer.concat([Buffer.from("arena.v1.MatchRecordBody", "ascii"), Buffer.from([0])]);

interface Vector {
  name: string;
  lab: string;
  public_key: string;
  key_id: string;
  body_hex: string;
  record_hex: string;
  expect: { lab: string; match_id: string; game_id: string; rules_version: string; seed: string; seats: string[];
            moves: number; returns: number[] };
}

function loadTypes(protoDir: string): { signed: protobuf.Type; body: protobuf.Type } {
  const root = new protobuf.Root();
  // Well-known types (google/protobuf/*.proto) come bundled with protobufjs; the rest from protoDir.
  root.resolvePath = (_origin, target) => (target.startsWith("google/protobuf/") ? target : path.join(protoDir, target));
  root.loadSync("arena/v1/federation.proto", { keepCase: true });
  return { signed: root.lookupType("arena.v1.SignedMatchRecord"), body: root.lookupType("arena.v1.MatchRecordBody") };
}

function ed25519Key(raw: Buffer) {
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") }, format: "jwk" });
}

// The problems found in one vector; none when it passes.
function check(vector: Vector, types: { signed: protobuf.Type; body: protobuf.Type }): string[] {
  const problems: string[] = [];
  const publicKey = Buffer.from(vector.public_key, "hex");
  const keyId = createHash("sha256").update(publicKey).digest("hex").slice(0, 16);
  if (keyId !== vector.key_id) problems.push(`key id ${keyId}, the vector says ${vector.key_id}`);

  const record = types.signed.decode(Buffer.from(vector.record_hex, "hex")) as unknown as {
    body: Uint8Array; signatures: { lab: string; key_id: string; signature: Uint8Array; role: number }[] };
  const body = Buffer.from(record.body);
  if (body.toString("hex") !== vector.body_hex) problems.push("the record's body is not the vector's body");
  const referee = record.signatures.find((s) => s.lab === vector.lab && s.role === 1);
  if (referee === undefined) {
    problems.push(`no referee signature of lab ${vector.lab}`);
  } else {
    const key = ed25519Key(publicKey);
    if (referee.key_id !== keyId) problems.push(`the signature names key ${referee.key_id}, not ${keyId}`);
    if (!verify(null, Buffer.concat([SIGNING_PREFIX, body]), key, Buffer.from(referee.signature))) {
      problems.push("the referee signature does not verify");
    }
    const tampered = Buffer.from(body);
    tampered[tampered.length - 1] ^= 1;
    if (verify(null, Buffer.concat([SIGNING_PREFIX, tampered]), key, Buffer.from(referee.signature))) {
      problems.push("a body with one byte changed still verifies");
    }
  }

  let decoded: protobuf.Message;
  try {
    decoded = types.body.decode(body);
  } catch (e) {
    return [...problems, `the body does not decode as arena.v1.MatchRecordBody (${(e as Error).message})`];
  }
  const again = Buffer.from(types.body.encode(decoded).finish());
  if (!again.equals(body)) problems.push(`re-encoding the body gives other bytes (${again.length} bytes, not ${body.length})`);
  const b = types.body.toObject(decoded, { longs: String, defaults: true, arrays: true }) as {
    lab: string; match_id: string; game_id: string; rules_version: string; seed: string;
    seats: { agent_name: string }[]; moves: unknown[]; result: { returns: number[] } };
  const seen = { lab: b.lab, match_id: b.match_id, game_id: b.game_id, rules_version: b.rules_version, seed: b.seed,
                 seats: b.seats.map((s) => s.agent_name), moves: b.moves.length, returns: b.result.returns };
  if (JSON.stringify(seen) !== JSON.stringify(vector.expect)) {
    problems.push(`decoded ${JSON.stringify(seen)}, expected ${JSON.stringify(vector.expect)}`);
  }
  return problems;
}

function main(argv: string[]): number {
  let args;
  try {
    args = parseArgs({ args: argv, allowPositionals: true, options: {
      "proto-dir": { type: "string", default: path.resolve(__dirname, "..", "..", "..", "proto") } } });
  } catch (e) {
    process.stderr.write(`verify-records: ${(e as Error).message}\n`);
    return 2;
  }
  if (args.positionals.length === 0) {
    process.stderr.write("usage: verify-records [--proto-dir DIR] VECTOR.json...\n");
    return 2;
  }
  const types = loadTypes(args.values["proto-dir"] as string);
  let failed = 0;
  for (const file of args.positionals) {
    const vector = JSON.parse(readFileSync(file, "utf8")) as Vector;
    const problems = check(vector, types);
    if (problems.length === 0) {
      process.stdout.write(`ok ${vector.name}: signature of ${vector.lab} (key ${vector.key_id}) verifies, ` +
                           `canonical encoding reproduced, ${vector.expect.moves} moves\n`);
    } else {
      failed += 1;
      process.stdout.write(`FAIL ${vector.name}: ${problems.join("; ")}\n`);
    }
  }
  return failed === 0 ? 0 : 1;
}

process.exitCode = main(process.argv.slice(2));
