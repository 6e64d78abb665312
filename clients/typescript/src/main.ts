#!/usr/bin/env node
// arena-bot: plays uniformly random legal actions on an Arena server, printing one line per
// finished match and a summary. Exit status: 0 done, 1 session failed, 2 bad usage, 130 interrupted.

import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";

import { RandomPlayer } from "./random_player";
import { type Logger, type MatchOutcome, Session, SessionError } from "./session";

const USAGE = `usage: arena-bot --game GAME_ID [--game GAME_ID ...] [options]

Plays uniformly random legal actions on an Arena server.

options:
  --server HOST:PORT        server address (default localhost:50051)
  --key KEY                 API key (default: $ARENA_API_KEY)
  --name NAME               agent name the key was issued for (default typescript-random)
  --game GAME_ID            a game to play; repeat for several
  --preset NAME             parameter preset asked for every game (default: the game's)
  --matches N               stop after N matches ended (default: run until stopped)
  --concurrency N           matches played at once (default 1)
  --no-ladder               only tournament matches, no ladder pairing
  --seed N                  random seed (default: a random one)
  --connect-timeout SECONDS give up when the server is unreachable this long (default 10)
  --tls                     connect over TLS with the system's root certificates
  --root-certificates PEM   connect over TLS trusting these certificates
  --client-cert PEM         mutual TLS: present this certificate chain
  --client-key PEM          mutual TLS: the client certificate's private key
  --proto-dir DIR           root of the .proto files (default: the repository's proto/)
  -v, --verbose             log the session's progress to stderr
  -h, --help                show this help`;

const OPTIONS = {
  server: { type: "string", default: "localhost:50051" },
  key: { type: "string" },
  name: { type: "string", default: "typescript-random" },
  game: { type: "string", multiple: true },
  preset: { type: "string", default: "" },
  matches: { type: "string" },
  concurrency: { type: "string", default: "1" },
  "no-ladder": { type: "boolean", default: false },
  seed: { type: "string" },
  "connect-timeout": { type: "string", default: "10" },
  tls: { type: "boolean", default: false },
  "root-certificates": { type: "string" },
  "client-cert": { type: "string" },
  "client-key": { type: "string" },
  "proto-dir": { type: "string", default: path.resolve(__dirname, "..", "..", "..", "proto") },
  verbose: { type: "boolean", short: "v", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const key = args.key ?? process.env.ARENA_API_KEY;
  if (!key) {
    throw new UsageError("an API key is needed: --key KEY or the ARENA_API_KEY environment variable");
  }
  if (!args.game?.length) {
    throw new UsageError("offer at least one game: --game GAME_ID");
  }
  if ((args["client-cert"] === undefined) !== (args["client-key"] === undefined)) {
    throw new UsageError("mutual TLS needs both --client-cert and --client-key");
  }
  // As arena-agent: any of the TLS options turns TLS on.
  const secure = args.tls || args["root-certificates"] !== undefined || args["client-cert"] !== undefined;
  const seed = args.seed === undefined ? randomInt(2 ** 31) : integer("--seed", args.seed, 0);
  const log = logger(args.verbose);
  log.info(`seed ${seed}`);

  const session = new Session({
    server: args.server,
    apiKey: key,
    name: args.name,
    version: packageVersion(),
    games: args.game,
    preset: args.preset,
    maxConcurrentMatches: integer("--concurrency", args.concurrency, 1),
    joinLadder: !args["no-ladder"],
    maxMatches: args.matches === undefined ? undefined : integer("--matches", args.matches, 1),
    connectTimeoutSeconds: positive("--connect-timeout", args["connect-timeout"]),
    tls: secure
      ? {
          rootCertificates: args["root-certificates"],
          clientCertificate: args["client-cert"],
          clientKey: args["client-key"],
        }
      : undefined,
    protoDir: args["proto-dir"],
    player: new RandomPlayer(seed),
    onResult: (result) => console.log(resultLine(result)),
    log,
  });
  process.once("SIGINT", () => {
    console.log(summaryLine(session.results));
    process.exit(130);
  });
  await session.run();
  console.log(summaryLine(session.results));
  return 0;
}

/** "<match id>  <game>  seat <n>  returns [<r0>, <r1>]  <reason>  <summary>", as arena-agent prints. */
function resultLine(r: MatchOutcome): string {
  const summary = r.summary ? `  ${r.summary}` : "";
  return `${r.matchId}  ${r.gameId}  seat ${r.seat}  returns [${r.returns.join(", ")}]  ${r.reason}${summary}`;
}

function summaryLine(results: MatchOutcome[]): string {
  const scored = results.filter((r) => r.returns.length > r.seat);
  let line = `${results.length} matches finished`;
  if (scored.length > 0) {
    const counts = { won: 0, drawn: 0, lost: 0 };
    for (const r of scored) {
      const mine = r.returns[r.seat];
      if (r.returns.every((x) => x === mine)) counts.drawn++;
      else if (mine === Math.max(...r.returns)) counts.won++;
      else counts.lost++;
    }
    const mean = scored.reduce((sum, r) => sum + r.returns[r.seat], 0) / scored.length;
    line +=
      `, ${scored.length} scored: mean return ${mean.toFixed(3)}, ` +
      `${counts.won} won, ${counts.drawn} drawn, ${counts.lost} lost`;
  }
  return line;
}

function logger(verbose: boolean): Logger {
  const write = (level: string, message: string) =>
    console.error(`${new Date().toISOString()} ${level} arena-bot: ${message}`);
  return {
    info: (message) => verbose && write("INFO", message),
    warn: (message) => write("WARNING", message),
  };
}

function integer(option: string, text: string, min: number): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`${option} must be an integer >= ${min}, not ${JSON.stringify(text)}`);
  }
  return value;
}

function positive(option: string, text: string): number {
  const value = Number(text);
  if (!(value > 0)) {
    throw new UsageError(`${option} must be a positive number, not ${JSON.stringify(text)}`);
  }
  return value;
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(path.join(__dirname, "..", "package.json"), "utf8"));
  return String(manifest.version);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`arena-bot: ${error.message} (see --help)`);
      process.exitCode = 2;
    } else if (error instanceof SessionError) {
      console.error(`arena-bot: ${error.message}`);
      process.exitCode = 1;
    } else {
      console.error(error);
      process.exitCode = 1;
    }
  },
);
