import type { Agent } from "undici";
import { NetworkError, RequestTimeoutError, ResponseTooLargeError } from "./upstream-errors.js";
import { linkedAbort } from "../async/linked-abort.js";
import type { HttpRequest, RawResponse } from "./http-messages.js";
import { declaredLength, readBody } from "./read-body.js";
import type { RequestIdentity } from "./request-budget.js";
import { requestTarget } from "./request-target.js";

export interface WireOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly timeoutMs: number;
  /** The largest answer read: a larger one is refused as it arrives. */
  readonly maxResponseBytes: number;
}

/** One try on the wire: the request sent, the whole answer read within its deadline. */
export async function sendRequest(
  agent: Agent,
  { baseUrl, apiKey, timeoutMs, maxResponseBytes }: WireOptions,
  request: HttpRequest,
  identity: RequestIdentity,
): Promise<RawResponse> {
  const abort = linkedAbort([request.signal], timeoutMs);
  const target = requestTarget(baseUrl, request.path, request.query);
  try {
    const response = await agent.request({
      ...target,
      method: request.method,
      // undici closes the connection after a GET with a body, in case the server left the body
      // unread; the trends operations are such GETs, and this upstream reads their bodies. Kept
      // alive, they cost no new connection each (a TLS handshake, against the real upstream).
      reset: false,
      signal: abort.signal,
      headers: {
        authorization: `Bearer ${apiKey}`,
        accept: "application/json",
        "content-type": "application/json",
        "user-agent": "music-etl",
        ...request.headers,
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
    const status = response.statusCode;
    // Counted as it arrives: an answer past the limit never fills the heap.
    const declared = declaredLength(response.headers);
    if (declared !== null && declared > maxResponseBytes) {
      response.body.destroy();
      throw new ResponseTooLargeError(identity, status, maxResponseBytes, declared, true);
    }
    const body = await readBody(response.body, maxResponseBytes, declared);
    if ("tooLarge" in body) {
      throw new ResponseTooLargeError(identity, status, maxResponseBytes, body.tooLarge, false);
    }
    return { status, headers: response.headers, bytes: body.bytes };
  } catch (error) {
    if (error instanceof ResponseTooLargeError) throw error;
    if (request.signal?.aborted) throw request.signal.reason;
    const code = (error as { code?: string }).code;
    if (abort.timedOut || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
      throw new RequestTimeoutError(identity, timeoutMs);
    }
    throw new NetworkError(identity, error);
  } finally {
    abort.close();
  }
}
