import {
  AuthError,
  BodyCharsetError,
  FailureBodyError,
  InvalidJsonError,
  RateLimitedError,
  RateLimitWaitTooLongError,
  UpstreamStatusError,
} from "./upstream-errors.js";
import type { Redact } from "../logging/redact-secrets.js";
import { rateLimitLimit } from "./rate-limit-headers.js";
import { parseJsonBody } from "../json/json-body.js";
import { parseJsonBytes } from "../json/json-bytes.js";
import { declaredCharset, decodeBody, decodeLeniently } from "./body-charset.js";
import { declaresFailure } from "./failure-body.js";
import type { HttpRequest, HttpResponse, RawResponse } from "./http-messages.js";
import type { RequestIdentity } from "./request-budget.js";
import { upstreamMessage } from "./upstream-message.js";

export interface AnswerRules {
  /** Removes the key from the upstream's answers about failures. */
  readonly redact: Redact;
  /** Cap on any one wait the upstream asks for. */
  readonly maxRateLimitWaitMs: number;
  /** The wait a 429 asked for, as the budget heeded it; null when it asked none. */
  readonly askedPauseMs: number | null;
}

/**
 * What an answer is: data (a 2xx whose body does not declare failure), a refusal the request
 * takes as its answer, or an error saying what went wrong (AuthError for a 401).
 */
export function readAnswer(
  request: HttpRequest,
  identity: RequestIdentity,
  raw: RawResponse,
  rules: AnswerRules,
): Omit<HttpResponse, "tries"> {
  const { status, headers } = raw;
  const charset = declaredCharset(headers);
  if (status >= 200 && status < 300) {
    const decoded = decodeBody(raw.bytes, charset);
    if (!("bytes" in decoded)) {
      throw new BodyCharsetError(identity, status, decoded.charset, decoded.problem);
    }
    const { bytes } = decoded;
    // Parsed from the bytes: a large answer is never held whole as text (see parseJsonBytes).
    const body = parseJson(() => parseJsonBytes(bytes));
    if (body === INVALID) throw new InvalidJsonError(identity, status, bytes.length);
    // Data is the upstream's and is landed as received (etl.responses), whatever it holds:
    // only what the program says of a failure is its own to keep clean.
    if (!declaresFailure(body)) return { status, body, bytes, headers };
    const failure = failureAnswer(rules.redact, bytes.toString());
    if (request.failureIsAnswer) {
      return { status, body: failure.body, bytes: Buffer.from(failure.text), headers };
    }
    throw new FailureBodyError(identity, status, failure.message, failure.text);
  }
  const failure = failureAnswer(rules.redact, decodeLeniently(raw.bytes, charset).toString());
  if (status === 401) throw new AuthError(identity, failure.message);
  if (status === 429) {
    const waitMs = rules.askedPauseMs ?? 0;
    if (waitMs > rules.maxRateLimitWaitMs) {
      throw new RateLimitWaitTooLongError(identity, waitMs, rules.maxRateLimitWaitMs);
    }
    throw new RateLimitedError(identity, waitMs, rateLimitLimit(headers));
  }
  if (request.acceptStatus?.(status, failure.body)) {
    return { status, body: failure.body, bytes: Buffer.from(failure.text), headers };
  }
  throw new UpstreamStatusError(identity, status, failure.message, failure.body);
}

/** An answer about a failure, as the rest of the program sees it: the key redacted. */
interface FailureAnswer {
  readonly text: string;
  /** Parsed from the redacted text; undefined when it is not JSON. */
  readonly body: unknown;
  /** The upstream's message, for errors (see upstreamMessage). */
  readonly message: string;
}

/**
 * An answer about a failure, with the key redacted before anything reads it. Some upstreams
 * repeat the request in their errors, credential included; what the program makes of such an
 * answer (error messages, and so stored run errors, BullMQ's failed jobs, /readyz through the
 * credential gate, command output; stored failure bodies and refused writes) is then clean by
 * construction, wherever the upstream put the key. Parsed after the redaction, so the parsed
 * body and the messages taken from it hold no form of the key the text did not.
 */
function failureAnswer(redact: Redact, text: string): FailureAnswer {
  const redacted = redact(text);
  const parsed = parseJson(() => parseJsonBody(redacted));
  const body = parsed === INVALID ? undefined : parsed;
  return { text: redacted, body, message: upstreamMessage(body, redacted) };
}

const INVALID = Symbol("invalid JSON");

function parseJson(parse: () => unknown): unknown {
  try {
    return parse();
  } catch {
    return INVALID;
  }
}
