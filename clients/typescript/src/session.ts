// One agent session: the AgentService.Connect stream, from the handshake to the last match.
//
// The server multiplexes all of the agent's matches over this one stream. Node runs the handlers
// one at a time and the stream queues writes in order, so answering a DecisionRequest straight
// from the "data" handler is safe and never holds up another match: the random choice is instant.

import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

import type { ProtoGrpcType } from "./generated/agent_service";
import type { AgentServiceClient } from "./generated/arena/v1/AgentService";
import type { ConnectRequest } from "./generated/arena/v1/ConnectRequest";
import type { ConnectResponse__Output } from "./generated/arena/v1/ConnectResponse";
import type { DecisionRequest__Output } from "./generated/arena/v1/DecisionRequest";
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
        `cannot reach ${server} within ${connectTimeoutSeconds} s (UNAVAILABLE)`,
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
    return new proto.arena.v1.AgentService(this.options.server, grpc.credentials.createInsecure());
  }

  private open(client: AgentServiceClient): void {
    const metadata = new grpc.Metadata();
    metadata.set("authorization", `Bearer ${this.options.apiKey}`);
    const call = client.Connect(metadata);
    this.call = call;
    call.on("data", (message: ConnectResponse__Output) => this.dispatch(message));
    call.on("error", (error: grpc.ServiceError) => {
      const stage = this.welcome ? "ended the session" : "refused the session";
      this.finish(
        new SessionError(`${this.options.server} ${stage} (${grpc.status[error.code]}): ${error.details}`, error.code),
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
      // Nothing is sent: the server's failure policy applies, as for any seat that cannot answer.
      this.options.log.warn(
        `match ${request.match_id} decision ${request.decision_id} accepts only free text ` +
          `(${request.text_action?.description ?? "no description"}); a random bot cannot answer it`,
      );
      return;
    }
    this.send({
      decision: { match_id: request.match_id, decision_id: request.decision_id, action_id: action.id },
    });
  }

  private onMatchEnded(ended: MatchEnded__Output): void {
    const match = ended.match!;
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

function now(): { seconds: number; nanos: number } {
  const millis = Date.now();
  return { seconds: Math.floor(millis / 1000), nanos: (millis % 1000) * 1e6 };
}
