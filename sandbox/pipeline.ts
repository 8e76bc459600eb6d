import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { bearerToken, credentialEcho } from "./credential-echo.js";
import { applyDrift, driftedText } from "./drift.js";
import { inCharset } from "./charsets.js";
import { encodeBody } from "./encodings.js";
import { renameFields } from "./renamed-fields.js";
import { drawFailureEnvelope } from "./failure-envelopes.js";
import { drawFault, HTML_503_BODY, truncate } from "./faults.js";
import { HttpError } from "./http/errors.js";
import { parseJsonObject, readBody } from "./http/read-body.js";
import { json, type Reply, writeResponse } from "./http/reply.js";
import { matchRoute, type RouteMatch } from "./http/router.js";
import type { SandboxKnobs } from "./interfaces.js";
import { type RateLimitState, rateLimitHeaders, tooManyRequestsHeaders } from "./rate-limiter.js";
import { ENDPOINT_ROUTES } from "./endpoint-modules.js";
import { ADMIN_PREFIX, handleAdmin } from "./admin.js";
import type { SandboxState } from "./sandbox-state.js";

/** The node:http handler of a sandbox. */
export function createRequestHandler(state: SandboxState) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    handle(state, request, response).catch((error: unknown) => {
      // close() aborts pending delays and destroys the sockets: nothing is left to answer.
      if (state.signal.aborted || response.headersSent) return;
      writeResponse(
        response,
        500,
        JSON.stringify({ error: "Internal Server Error", detail: String(error) }),
      );
    });
  };
}

/**
 * count → down → auth → rate limit → credential echo → fault → failure envelope → route, in that
 * order.
 */
async function handle(state: SandboxState, request: IncomingMessage, response: ServerResponse) {
  const url = new URL(request.url ?? "/", "http://sandbox");
  // Routed on the path as sent: URL resolves dot segments, even encoded ones, and a name ".."
  // sent as one segment would otherwise be taken for the parent path.
  const sentPath = (request.url ?? "/").split("?")[0] ?? "/";
  if (url.pathname.startsWith(ADMIN_PREFIX)) {
    return handleAdmin(state, request, response, url.pathname);
  }

  const arrivedMs = state.clock();
  const arrivedAt = performance.now();
  const match = matchRoute(ENDPOINT_ROUTES, request.method ?? "", sentPath);
  state.stats.arrived(match?.route.operation ?? "unknown", Math.floor(arrivedMs / 1000));
  response.on("close", () => state.stats.finished());
  const knobs = state.knobs();
  if (knobs.down) return request.socket.destroy();
  const to: Outgoing = { state, response, knobs, arrivedAt };

  const limit = knobs.requestsPerSecond;
  const mode = knobs.rateLimitHeaders;
  const echo = credentialEcho(knobs.echoCredential, bearerToken(request));
  if (knobs.refuseCredential || echo?.status === 401 || !isAuthorized(request, state.apiKey)) {
    const budget =
      limit === null ? null : state.limiter.peek(limit, arrivedMs, knobs.rateLimitWindow);
    const refusal = echo?.status === 401 ? echo : json(401, { error: "Invalid token" });
    return sendJson(to, refusal, rateLimitHeaders(budget, mode));
  }
  let budget: RateLimitState | null = null;
  if (limit !== null) {
    const decision = state.limiter.take(limit, arrivedMs, knobs.rateLimitWindow);
    if (!decision.allowed) {
      const headers = tooManyRequestsHeaders(decision, mode, arrivedMs);
      return sendJson(to, json(429, { message: "Too Many Attempts." }), headers);
    }
    budget = decision;
  }
  const headers = rateLimitHeaders(budget, mode);
  if (echo) {
    if (echo.status === 200) state.stats.failureEnvelope();
    return sendJson(to, echo, headers);
  }

  const fault = drawFault(state.faultRng, knobs);
  if (fault) state.stats.fault(fault);
  if (fault === "reset") return request.socket.destroy();
  if (fault === "html503") {
    return send(to, 503, HTML_503_BODY, headers, "text/html; charset=utf-8");
  }
  if (fault === "error500") {
    return sendJson(to, json(500, { error: "Internal Server Error" }), headers);
  }
  if (fault === "slow") await sleep(knobs.slowMs, undefined, { signal: state.signal });
  // A truncated body is already a failure of its own; the two are not stacked.
  const envelope =
    match && fault !== "truncated"
      ? drawFailureEnvelope(state.envelopeRng, knobs, request.method ?? "")
      : null;
  if (envelope) {
    state.stats.failureEnvelope();
    return sendJson(to, json(200, envelope), headers);
  }

  const reply = match
    ? await route(state, request, knobs, match, url)
    : json(404, { error: "Not found" });
  if (
    match?.route.operation === "royalties.requestPayout" &&
    state.knobs().dropFirstPayoutResponse
  ) {
    // The payout was made; the client never hears of it and must retry safely.
    state.setKnobs({ dropFirstPayoutResponse: false });
    return request.socket.destroy();
  }
  const body =
    reply.status < 300
      ? applyDrift(
          encodeBody(renameFields(reply.body, match?.route.operation, knobs.shapes), knobs.shapes),
          knobs.drift,
        )
      : reply.body;
  const text = driftedText(body);
  if (fault === "truncated") return send(to, 200, truncate(text), headers);
  const served = reply.status < 300 ? inCharset(text, knobs.shapes.charset) : { body: text };
  return send(to, reply.status, served.body, headers, served.contentType);
}

async function route(
  state: SandboxState,
  request: IncomingMessage,
  knobs: SandboxKnobs,
  { route, params }: RouteMatch,
  url: URL,
): Promise<Reply> {
  try {
    const raw = await readBody(request);
    return route.handle({
      params,
      query: Object.fromEntries(url.searchParams),
      body: () => parseJsonObject(raw),
      headers: request.headers,
      data: state.data,
      knobs,
    });
  } catch (error) {
    if (error instanceof HttpError) return json(error.status, error.body);
    throw error;
  }
}

function isAuthorized(request: IncomingMessage, apiKey: string): boolean {
  return bearerToken(request) === apiKey;
}

/** Where a request's answer goes, and when the request arrived. */
interface Outgoing {
  readonly state: SandboxState;
  readonly response: ServerResponse;
  readonly knobs: SandboxKnobs;
  readonly arrivedAt: number;
}

/**
 * Writes a response once `latencyMs` have passed since the request arrived: the latency is the
 * upstream's answer time, so the sandbox's own work (routing, making and serialising the answer)
 * is part of it rather than added to it, and a bench's ideal of requests × latency is reachable.
 */
async function send(
  { state, response, knobs, arrivedAt }: Outgoing,
  status: number,
  text: string | Buffer,
  headers: Record<string, number> = {},
  contentType?: string,
): Promise<void> {
  const waitMs = knobs.latencyMs - (performance.now() - arrivedAt);
  if (waitMs > 0) await sleep(waitMs, undefined, { signal: state.signal });
  state.stats.status(status, Math.floor(state.clock() / 1000));
  writeResponse(response, status, text, headers, contentType, knobs.chunkedBodies);
}

function sendJson(to: Outgoing, reply: Reply, headers: Record<string, number> = {}): Promise<void> {
  return send(to, reply.status, JSON.stringify(reply.body), headers);
}
