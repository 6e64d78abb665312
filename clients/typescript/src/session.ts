// One agent session: the AgentService.Connect stream, from the handshake to the last match.
//
// The server multiplexes all of the agent's matches over this one stream. Node runs the handlers
// one at a time and the stream queues writes in order, so answering a DecisionRequest straight
// from the "data" handler is safe and never holds up another match: the random choice is instant.

import { readFileSync } from "node:fs";

import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

import type { ProtoGrpcType } from "./generated/agent_service";
import type { AgentServiceClient } from "./generated/arena/v1/AgentService";
import type { ConnectRequest } from "./generated/arena/v1/ConnectRequest";
import type { ConnectResponse__Output } from "./generated/arena/v1/ConnectResponse";
import type { Decision } from "./generated/arena/v1/Decision";
import type { DecisionRequest__Output } from "./generated/arena/v1/DecisionRequest";
import type { Error__Output } from "./generated/arena/v1/Error";
import type { MatchEnded__Output } from "./generated/arena/v1/MatchEnded";
import type { Welcome__Output } from "./generated/arena/v1/Welcome";
import type { RandomPlayer } from "./random_player";

export const PROTOCOL_VERSION = "1.0";

// The same options are given to proto-loader-gen-types in package.json, so that the generated
// types describe the objects this loader produces: snake_case fields, 64-bit integers as strings
// (ids are echoed back exactly), enums by name, defaults filled in, and the oneof's name set.
const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

// Longest wait honoured for a rate-limited decision: a longer quote would outlast any decision's
// deadline anyway.
const MAX_RESEND_DELAY_SECONDS = 10;

const PLAINTEXT_HINT = "this bot speaks plaintext: if the server uses TLS, add --tls or --root-certificates";

export interface SessionOptions {
  server: string;
  apiKey: string;
  name: string;
  version: string;
  games: string[];
  preset: string;
  maxConcurrentMatches: number;
  joinLadder: boolean;
  /** Stop after this many matches ended; undefined plays until the server closes the stream. */
  maxMatches?: number;
  connectTimeoutSeconds: number;
  /** Connect over TLS; undefined for plaintext. */
  tls?: TlsFiles;
  /** Root of the .proto tree (the directory holding arena/v1/). */
  protoDir: string;
  player: RandomPlayer;
  onResult: (result: MatchOutcome) => void;
  log: Logger;
}

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

/** PEM files for a TLS connection, each optional. */
export interface TlsFiles {
  /** CA certificates that sign the server's certificate; unset: the system's roots. */
  rootCertificates?: string;
  /** Mutual TLS: the bot's certificate chain and its private key, both or neither. */
  clientCertificate?: string;
  clientKey?: string;
}

/** One finished match, as the bot reports it. */
export interface MatchOutcome {
  matchId: string;
  gameId: string;
  seat: number;
  /** "normal", "forfeit_timeout", ... */
  reason: string;
  /** Return per seat; empty when the match was voided or aborted. */
  returns: number[];
  summary: string;
}

/** The session could not start or the server ended it; `code` is the gRPC status, when there is one. */
export class SessionError extends Error {
  constructor(message: string, readonly code?: grpc.status) {
    super(message);
  }
}

export class Session {
  readonly results: MatchOutcome[] = [];
  private welcome?: Welcome__Output;
  private client?: AgentServiceClient;
  private call?: grpc.ClientDuplexStream<ConnectRequest, ConnectResponse__Output>;
  private heartbeat?: NodeJS.Timeout;
  private settle?: (error?: SessionError) => void;
  /** The Decision answering each running match's latest request: what a rate-limited refusal asks for again. */
  private readonly latestDecisions = new Map<string, Decision>();
  /** Resends waiting for their delay; cancelled when the session ends. */
  private readonly resendTimers = new Set<NodeJS.Timeout>();

  constructor(private readonly options: SessionOptions) {}

  /** Plays until done; resolves with the finished matches, rejects with a SessionError. */
  async run(): Promise<MatchOutcome[]> {
    const { server, connectTimeoutSeconds } = this.options;
    const client = this.newClient();
    this.client = client;
    try {
      await waitForReady(client, connectTimeoutSeconds);
    } catch {
      client.close();
      throw new SessionError(
        `cannot reach ${server} within ${connectTimeoutSeconds} s (UNAVAILABLE)${this.plaintextHint()}`,
        grpc.status.UNAVAILABLE,
      );
    }
    await new Promise<void>((resolve, reject) => {
      this.settle = (error) => (error ? reject(error) : resolve());
      this.open(client);
    });
    return this.results;
  }

  private newClient(): AgentServiceClient {
    let definition: protoLoader.PackageDefinition;
    try {
      definition = protoLoader.loadSync("arena/v1/agent_service.proto", {
        ...LOADER_OPTIONS,
        includeDirs: [this.options.protoDir],
      });
    } catch (e) {
      throw new SessionError(`cannot load the protocol from ${this.options.protoDir}: ${(e as Error).message}`);
    }
    const proto = grpc.loadPackageDefinition(definition) as unknown as ProtoGrpcType;
    return new proto.arena.v1.AgentService(this.options.server, this.credentials());
  }

  private credentials(): grpc.ChannelCredentials {
    const { tls } = this.options;
    if (tls === undefined) {
      return grpc.credentials.createInsecure();
    }
    const roots = readPem("--root-certificates", tls.rootCertificates);
    const chain = readPem("--client-cert", tls.clientCertificate);
    const key = readPem("--client-key", tls.clientKey);
    try {
      return grpc.credentials.createSsl(roots, key, chain);
    } catch (e) {
      // e.g. a key that does not match the certificate, or PEM text that does not parse
      throw new SessionError(`cannot use the TLS files: ${(e as Error).message}`);
    }
  }

  /** Appended to an UNAVAILABLE failure before the handshake: the usual cause is a TLS server. */
  private plaintextHint(): string {
    return this.options.tls === undefined ? `; ${PLAINTEXT_HINT}` : "";
  }

  private open(client: AgentServiceClient): void {
    const metadata = new grpc.Metadata();
    metadata.set("authorization", `Bearer ${this.options.apiKey}`);
    const call = client.Connect(metadata);
    this.call = call;
    call.on("data", (message: ConnectResponse__Output) => this.dispatch(message));
    call.on("error", (error: grpc.ServiceError) => {
      const stage = this.welcome ? "ended the session" : "refused the session";
      const hint = !this.welcome && error.code === grpc.status.UNAVAILABLE ? this.plaintextHint() : "";
      this.finish(
        new SessionError(
          `${this.options.server} ${stage} (${grpc.status[error.code]}): ${error.details}${hint}`,
          error.code,
        ),
      );
    });
    call.on("end", () => {
      if (this.settle === undefined) {
        return; // the end of a stream we closed ourselves
      }
      const { maxMatches } = this.options;
      if (maxMatches !== undefined && this.results.length < maxMatches) {
        this.finish(
          new SessionError(`${this.options.server} closed the session after ${this.results.length} of ${maxMatches} matches`),
        );
      } else {
        this.options.log.info("the server closed the session");
        this.finish();
      }
    });
    call.write({ hello: this.hello() });
  }

  private hello(): ConnectRequest["hello"] {
    const o = this.options;
    return {
      protocol_version: PROTOCOL_VERSION,
      agent: { name: o.name, version: o.version, description: "uniformly random legal actions (TypeScript)" },
      games: o.games.map((game_id) => ({ game_id, preset: o.preset })),
      max_concurrent_matches: o.maxConcurrentMatches,
      join_ladder: o.joinLadder,
      // This bot reads moves from each request's observation, so it takes no MatchEvent.
      capabilities: ["no_match_events"],
    };
  }

  private dispatch(message: ConnectResponse__Output): void {
    switch (message.message) {
      case "welcome":
        this.onWelcome(message.welcome!);
        break;
      case "match_started": {
        const started = message.match_started!;
        this.options.log.info(`match ${started.match!.match_id} of ${started.match!.game_id} started, seat ${started.seat}`);
        break;
      }
      case "decision_request":
        this.decide(message.decision_request!);
        break;
      case "match_ended":
        this.onMatchEnded(message.match_ended!);
        break;
      case "error": {
        const error = message.error!;
        this.options.log.warn(
          `server error ${error.code} for match ${error.match_id || "-"} decision ${error.decision_id}: ${error.message}`,
        );
        if (error.code === "ERROR_CODE_RATE_LIMITED" && error.match_id) {
          this.resendLater(error);
        }
        break;
      }
      case "heartbeat":
        this.options.log.info("heartbeat answered");
        break;
      case "event": // not sent: Hello declares "no_match_events"
      case "probe": // only sent to agents whose Hello lists the "probes" capability
        break;
      default:
        this.options.log.warn(`ignoring a message with no known field set: ${JSON.stringify(message)}`);
    }
  }

  private onWelcome(welcome: Welcome__Output): void {
    this.welcome = welcome;
    for (const rejected of welcome.rejected_games) {
      this.options.log.warn(`the server refused game ${rejected.game_id}: ${rejected.reason}`);
    }
    if (welcome.accepted_games.length === 0) {
      this.finish(new SessionError(`${this.options.server} accepted none of the offered games`));
      return;
    }
    this.options.log.info(
      `session ${welcome.session_id} on ${welcome.server_id} as ${this.options.name}: ` +
        `games ${welcome.accepted_games.join(", ")}`,
    );
    const interval = welcome.heartbeat_interval;
    const millis = interval ? Number(interval.seconds) * 1000 + interval.nanos / 1e6 : 0;
    if (millis > 0) {
      this.heartbeat = setInterval(() => this.send({ heartbeat: { time: now() } }), millis);
    }
  }

  private decide(request: DecisionRequest__Output): void {
    const action = this.options.player.choose(request);
    if (action === undefined) {
      this.latestDecisions.delete(request.match_id);
      // Nothing is sent: the server's failure policy applies, as for any seat that cannot answer.
      this.options.log.warn(
        `match ${request.match_id} decision ${request.decision_id} accepts only free text ` +
          `(${request.text_action?.description ?? "no description"}); a random bot cannot answer it`,
      );
      return;
    }
    const decision = { match_id: request.match_id, decision_id: request.decision_id, action_id: action.id };
    this.latestDecisions.set(request.match_id, decision);
    this.send({ decision });
  }

  /**
   * The server dropped a Decision over the key's rate limit: sends the same Decision again once the
   * wait it quotes has passed, unless the match moved on meanwhile (a newer request, or its end).
   * One resend per refusal: a resend the server drops too comes back as a refusal of its own.
   */
  private resendLater(refusal: Error__Output): void {
    const decision = this.latestDecisions.get(refusal.match_id);
    if (decision?.decision_id !== refusal.decision_id) {
      return;
    }
    const seconds = retryAfterSeconds(refusal.message);
    this.options.log.info(`resending match ${refusal.match_id} decision ${refusal.decision_id} in ${seconds} s`);
    const timer = setTimeout(() => {
      this.resendTimers.delete(timer);
      if (this.latestDecisions.get(refusal.match_id) === decision) {
        this.send({ decision });
      }
    }, seconds * 1000);
    this.resendTimers.add(timer);
  }

  private onMatchEnded(ended: MatchEnded__Output): void {
    const match = ended.match!;
    this.latestDecisions.delete(match.match_id);
    const result = match.result;
    const outcome: MatchOutcome = {
      matchId: match.match_id,
      gameId: match.game_id,
      seat: ended.seat,
      reason: String(result?.reason ?? "END_REASON_UNSPECIFIED").replace(/^END_REASON_/, "").toLowerCase(),
      returns: result?.returns ?? [],
      summary: result?.summary ?? "",
    };
    this.results.push(outcome);
    this.options.onResult(outcome);
    const { maxMatches } = this.options;
    if (maxMatches !== undefined && this.results.length >= maxMatches) {
      this.finish();
    }
  }

  private send(message: ConnectRequest): void {
    this.call?.write(message);
  }

  /** Ends the session once; later calls (e.g. the CANCELLED error our own cancel causes) are ignored. */
  private finish(error?: SessionError): void {
    const settle = this.settle;
    if (settle === undefined) {
      return;
    }
    this.settle = undefined;
    clearInterval(this.heartbeat);
    this.resendTimers.forEach(clearTimeout);
    this.call?.cancel();
    this.client?.close();
    settle(error);
  }
}

function waitForReady(client: grpc.Client, timeoutSeconds: number): Promise<void> {
  return new Promise((resolve, reject) =>
    client.waitForReady(Date.now() + timeoutSeconds * 1000, (error) => (error ? reject(error) : resolve())),
  );
}

/** Reads an optional PEM file named by `option`; a missing or non-PEM file is a SessionError. */
function readPem(option: string, file: string | undefined): Buffer | null {
  if (file === undefined) {
    return null;
  }
  let pem: Buffer;
  try {
    pem = readFileSync(file);
  } catch (e) {
    // "ENOENT: no such file or directory, open 'ca.pem'" -> "ENOENT: no such file or directory"
    throw new SessionError(`${option}: cannot read ${file} (${(e as Error).message.split(",")[0]})`);
  }
  if (!pem.includes("-----BEGIN ")) {
    throw new SessionError(`${option}: ${file} is not a PEM file`);
  }
  return pem;
}

/** The wait a RATE_LIMITED message quotes ("... retry after 0.963 s ..."), clamped; 1 s when it quotes none. */
function retryAfterSeconds(message: string): number {
  const quoted = /retry after (\d+(?:\.\d+)?) s/.exec(message);
  return quoted ? Math.min(Number(quoted[1]), MAX_RESEND_DELAY_SECONDS) : 1;
}

function now(): { seconds: number; nanos: number } {
  const millis = Date.now();
  return { seconds: Math.floor(millis / 1000), nanos: (millis % 1000) * 1e6 };
}
