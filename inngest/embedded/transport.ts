import { randomBytes } from "node:crypto";
import type { Db } from "@/db";
import { inngestFunctions } from "@/db/schema/jobs";
import type { RunnerContext } from "./context";
import { ingestEventsInTx, type EventPayload } from "./intake";
import { compileFunctions, type FunctionConfig, type FunctionRegistry } from "./registry";
import { transaction } from "./state";
import { processSingleton } from "@/server/runtime/process-singleton";

/**
 * The in-process side of embedded mode: where `inngest.send()` / `step.sendEvent()` land (the client's `fetch`
 * option points here), and the secret the runner adds to its requests so the serve route can refuse everyone else.
 *
 * State is process-wide (server/runtime/process-singleton.ts) because Next.js bundles instrumentation.ts and route
 * handlers separately: a module-level variable would exist once per bundle.
 */

/** Base URL the embedded client uses for the event and REST APIs; never resolved over the network. */
export const EMBEDDED_BASE_URL = "http://inngest.embedded.invalid/";
/** Header carrying the process secret on the runner's requests to the serve handler. */
export const EMBEDDED_TOKEN_HEADER = "x-embedded-inngest-token";
export const DEFAULT_PARTITION = "default";

/** What a runner in this process offers to the transport: where events go and which functions they trigger. */
export type LocalRunner = Pick<RunnerContext, "id" | "db" | "partition" | "now" | "registry"> & { poke: () => void };

/** Answers the SDK's checkpoint calls for one request in flight (see checkpoint.ts). */
export type CheckpointTarget = (body: CheckpointBody) => Promise<{ status: number; body: unknown }>;
export type CheckpointBody = { run_id?: string; fn_id?: string; qi_id?: string; steps?: unknown[] };

type EmbeddedGlobal = {
  token: string;
  runners: LocalRunner[];
  /** Requests in flight that checkpoint, by the queue item id (`ctx.qi_id`) the runner gave them. */
  checkpoints: Map<string, CheckpointTarget>;
  fallback?: { registry: FunctionRegistry; loadedAt: number };
};

function state(): EmbeddedGlobal {
  return processSingleton("inngestEmbedded", (): EmbeddedGlobal => ({ token: randomBytes(24).toString("hex"), runners: [], checkpoints: new Map() }));
}

/** Routes the checkpoints of the request given queue item id `id` to `target` until the returned function is called. */
export function registerCheckpointTarget(id: string, target: CheckpointTarget): () => void {
  const { checkpoints } = state();
  checkpoints.set(id, target);
  return () => {
    checkpoints.delete(id);
  };
}

export function embeddedRunnerToken(): string {
  return state().token;
}

export function registerLocalRunner(runner: LocalRunner): void {
  state().runners.push(runner);
}

export function unregisterLocalRunner(id: string): void {
  const current = state();
  current.runners = current.runners.filter((runner) => runner.id !== id);
}

export function localRunners(): readonly LocalRunner[] {
  return state().runners;
}

/** Registry from the database, for processes that send events without running a runner (e.g. a CLI script). */
async function databaseRegistry(db: Db): Promise<FunctionRegistry> {
  const current = state();
  if (current.fallback && Date.now() - current.fallback.loadedAt < 2000) return current.fallback.registry;
  const rows = await db.select({ config: inngestFunctions.config }).from(inngestFunctions);
  let registry: FunctionRegistry;
  try {
    registry = compileFunctions(rows.map((row) => row.config as FunctionConfig));
  } catch {
    registry = new Map();
  }
  current.fallback = { registry, loadedAt: Date.now() };
  return registry;
}

export type IngestOptions = { db?: Db; now?: Date };

/**
 * Stores events and starts / resumes / cancels runs, in one transaction. Uses the newest runner of this process
 * (its database, clock, partition and functions); without one, the app database and the functions last synced to it.
 */
export async function ingestEvents(payloads: EventPayload[], options: IngestOptions = {}): Promise<string[]> {
  const runner = localRunners().at(-1);
  let db = options.db ?? runner?.db;
  if (!db) {
    const { getDb } = await import("@/db");
    db = getDb();
  }
  const registry = runner ? runner.registry() : await databaseRegistry(db);
  const now = options.now ?? runner?.now() ?? new Date();
  const ids = await transaction(db, (tx) =>
    ingestEventsInTx(tx, { now, partition: runner?.partition ?? DEFAULT_PARTITION, registry }, payloads),
  );
  for (const local of localRunners()) local.poke();
  return ids;
}

/**
 * One checkpoint of a request in flight, handed to the target its runner registered. An applied checkpoint is
 * answered with a bare 200 (the SDK reads only the status; a Response with a body costs a stream, ~40 µs a step).
 */
async function checkpoint(body: CheckpointBody | null): Promise<Response> {
  const target = body?.qi_id ? state().checkpoints.get(body.qi_id) : undefined;
  // No target: the request is over or was never ours; 409 (stale dispatch) tells the SDK to stop.
  if (!body || !target) return json(409, { status: 409, error: "No request in flight for this checkpoint." });
  const answer = await target(body);
  return answer.status === 200 ? new Response(null) : json(answer.status, answer.body);
}

function json(status: number, body: unknown): Response {
  return new Response(typeof body === "string" ? body : JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

const EVENT_PATH = /^\/e\/[^/]+\/?$/;
const CHECKPOINT_PATH = /^\/v1\/checkpoint\/[^/]+\/async\/?$/;

/**
 * The embedded client's `fetch`: answers the Inngest event API (`POST /e/<key>`) and the checkpoint API
 * (`POST /v1/checkpoint/<runId>/async`) in-process. Other Inngest API calls (realtime, signals) do not exist in
 * embedded mode and fail with a clear 501.
 */
export async function embeddedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  // The SDK passes a URL and a string body for every checkpoint and event send: no Request is built for those.
  const plain = !(input instanceof Request) && (init?.body === undefined || init?.body === null || typeof init.body === "string");
  const request = plain ? undefined : input instanceof Request ? input : new Request(input, init);
  const method = request ? request.method : (init?.method ?? "GET").toUpperCase();
  const url = request ? new URL(request.url) : input instanceof URL ? input : new URL(input as string);
  if (method === "POST" && CHECKPOINT_PATH.test(url.pathname)) return checkpoint((await readJson(request, init).catch(() => null)) as CheckpointBody | null);
  if (method === "POST" && EVENT_PATH.test(url.pathname)) {
    let payloads: unknown;
    try {
      payloads = await readJson(request, init);
    } catch {
      return json(400, { status: 400, error: "Event payload is not JSON" });
    }
    const list = (Array.isArray(payloads) ? payloads : [payloads]) as EventPayload[];
    try {
      const ids = await ingestEvents(list);
      return json(200, { ids, status: 200 });
    } catch (error) {
      return json(400, { status: 400, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return json(501, {
    status: 501,
    error: `The embedded Inngest runner does not provide ${method} ${url.pathname}; run against an Inngest server for this feature.`,
  });
}

/** The body of a fetch call as JSON: the Request's when one was built, else the string body as given. */
async function readJson(request: Request | undefined, init: RequestInit | undefined): Promise<unknown> {
  return request ? request.json() : JSON.parse((init?.body as string | undefined) ?? "");
}
