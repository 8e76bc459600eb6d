// The sandbox's public contract: the project's tests, demo and CLI code against these names.
import type { SandboxDataset } from "./dataset/dataset.js";
import type { SandboxSize } from "./size.js";

export interface SandboxOptions {
  /** Default 0 (ephemeral). */
  port?: number;
  /** Interface to listen on; default 127.0.0.1 (0.0.0.0 in a container, for other containers). */
  host?: string;
  /** Default "sandbox-key"; requests need `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Default 1; the same seed and size give byte-identical data. */
  seed?: number;
  size?: Partial<SandboxSize>;
  knobs?: KnobsPatch;
  /** YYYY-MM-DD, the sandbox's "now" for snapshots and defaults; default the current UTC date. */
  today?: string;
  /**
   * Epoch ms by which the rate limit counts and the stats are kept per second; default Date.now.
   * A test holds it still to send a burst within one of the limit's seconds, however slowly.
   */
  clock?: () => number;
}

/** The answers a careless upstream repeats the credential in. */
export type CredentialEchoStatus = 200 | 400 | 401;

export type FaultKind = "html503" | "error500" | "reset" | "truncated" | "slow";

export interface DriftKnobs {
  extraFields: boolean;
  numbersAsStrings: boolean;
  nulls: boolean;
  renamedEnum: boolean;
  /** Some measures and dates in forms no reader can type: "n/a", "12,5", "21/01/2026". */
  malformed: boolean;
  /**
   * Values no database column of their kind holds: NUL and half surrogate pairs in texts,
   * 30-digit integers, ranks beyond 32 bits, ids that cannot be keys, 10,000-deep nesting.
   */
  hostile: boolean;
}

/**
 * Alternative, plausible shapes for payloads the spec leaves "not shown", and late data. The
 * defaults are the shapes the sandbox has always served; every other value is presentation only
 * (the records are the same), except `revision`, which changes the dataset itself.
 */
export interface ShapeKnobs {
  /**
   * The endpoint modules (sandbox/endpoints/, by file name) that serve their other plausible
   * shape: the same records, presented as that module says.
   */
  otherShapes: string[];
  /** Offset-paged lists serve at most this many records a page, whatever limit/size asked. */
  pageCap: number | null;
  /** GET /payouts, /payouts/pending and /incomes paged by a 1-based `page` query parameter. */
  royaltiesPaging: "none" | "page-number" | "next-link" | "laravel";
  /** Records per royalties page when royaltiesPaging is not "none". */
  royaltiesPageSize: number;
  /** An origin ("http://host:port") put in next links instead of the sandbox's own. */
  foreignNextLink: string | null;
  /** GET /invoice and GET /getTrendsTotal as `{status: true, data: {...}}`. */
  wrappedObjects: boolean;
  /** Incomes served without their `id`. */
  incomesWithoutIds: boolean;
  /** How /artist-stats/stat/{source} serves its points. */
  statPoints: "timestp" | "date-field" | "pairs" | "metric-rows";
  /** Late data and restatements: at 1 or more the dataset serves changed values. */
  revision: number;
  /**
   * 0..1 share of GET /api/v1 answers replaced by 200 with a failure body (`{status: false,
   * message}`, `{error}`…), drawn like faults: another attempt of the same request may succeed.
   */
  failureEnvelopeRate: number;
  /**
   * Decimals of every money amount. 4 changes the dataset's values (amounts gain two digits) and
   * serves about half of them as JSON numbers, half as strings ("12.3400").
   */
  moneyDecimals: 2 | 4;
  /** Booleans as JSON booleans, or "mixed": 1/0, "1"/"0" and "true"/"false", as PHP code sends them. */
  booleans: "json" | "mixed";
  /** Instants as ISO 8601, or "sql": `YYYY-MM-DD hh:mm:ss[.SSS]`, no zone (meaning UTC). */
  datetimes: "iso" | "sql";
  /**
   * Single objects and royalties lists under a key named for them (`{status: true, invoice}`,
   * `{status: true, payouts}`), and charts and the trends list in nested paging envelopes.
   */
  namedObjects: boolean;
  /** Snapshots as lists: video-market-coverage its markets, cm-stats and audience stats `[object]`. */
  listSnapshots: boolean;
  /** Every empty object served as `[]`, as PHP's json_encode writes an empty array. */
  phpEmpty: boolean;
  /**
   * The fields of the artist statistics records that the spec does not show, and that no key is
   * made of, named otherwise (camelCase or other words: `spins` is `spinCount`), as an upstream
   * written independently names them (sandbox/renamed-fields.ts).
   */
  renamedFields: boolean;
  /**
   * The dataset holds empty cases: an artist photo with no fields, a payout whose metadata has
   * no key, an audience domain with no data, and only one pending payout (none from revision 1).
   */
  emptyCases: boolean;
  /**
   * The charset successes are served in: UTF-8, ISO-8859-1 declared as such (an older PHP stack's
   * habit; characters beyond it as \u escapes), or "mislabelled": ISO-8859-1 bytes declared as
   * UTF-8, which a client must refuse rather than store garbled.
   */
  charset: "utf-8" | "iso-8859-1" | "mislabelled";
}

export interface SandboxKnobs {
  /** null = no limit. Over the limit in the current epoch second => 429. */
  requestsPerSecond: number | null;
  /**
   * With a limit, every answer carries X-RateLimit-*; a 429 adds Retry-After ("retry-after") or
   * carries only X-RateLimit-Reset ("reset-only"). "on-429": successes carry none, a 429 carries
   * Retry-After and X-RateLimit-*. "retry-after-only": a 429 carries Retry-After alone. "none": no
   * rate-limit header at all.
   */
  rateLimitHeaders: "retry-after" | "reset-only" | "on-429" | "retry-after-only" | "none";
  /**
   * How the limit counts: per epoch second ("second"), over any 1000 ms ("sliding"), or a token
   * bucket of `requestsPerSecond` tokens refilled continuously ("bucket").
   */
  rateLimitWindow: "second" | "sliding" | "bucket";
  /** Added to every response. */
  latencyMs: number;
  /** 0..1 probability that a request gets a fault. */
  faultRate: number;
  /** Faults drawn from, uniformly. */
  faults: FaultKind[];
  /** Delay of the "slow" fault. */
  slowMs: number;
  /** Every request's socket is destroyed without a reply. */
  down: boolean;
  /** Every request is refused with 401, whatever its key: a credential revoked upstream. */
  refuseCredential: boolean;
  /**
   * null, or the status every request is answered with, in a body that repeats the bearer token
   * the request carried (see credential-echo.ts): 401 whatever the key, or, to a request with the
   * right key, 400 or a 200 that declares failure. An upstream that echoes the request it refused.
   */
  echoCredential: CredentialEchoStatus | null;
  /** Trends list: bare array of items, or the totals fields with the items under `data`. */
  listShape: "array" | "object";
  /** Payouts, pending payouts and incomes: `{status: true, data}` or a bare array. */
  royaltiesShape: "wrapped" | "array";
  /** /artist-stats/charts: `{obj: {length, data}}` or `{obj: [...]}`. */
  chartsShape: "wrapped" | "array";
  drift: DriftKnobs;
  /** Alternative payload shapes and late data; merges field by field like drift. */
  shapes: ShapeKnobs;
  /** POST /payouts: perform the first request but destroy the socket instead of answering. */
  dropFirstPayoutResponse: boolean;
  /**
   * Every answer sent in chunks of 16 KiB with no Content-Length (Transfer-Encoding: chunked), as
   * a server that streams its JSON does: a client learns its size only as it arrives.
   */
  chunkedBodies: boolean;
  /**
   * Days (YYYY-MM-DD) whose trends list ends early without a word: its last item is never
   * served, while the totals and the chart still count it. A list cut short upstream.
   */
  shortListDays: string[];
}

/** Knobs to change; drift and shapes merge field by field. */
export type KnobsPatch = Partial<Omit<SandboxKnobs, "drift" | "shapes">> & {
  drift?: Partial<DriftKnobs>;
  shapes?: Partial<ShapeKnobs>;
};

export interface SandboxStats {
  /** All requests received, including 401s, 429s and faults. */
  requests: number;
  byOperation: Record<string, number>;
  byStatus: Record<number, number>;
  /** 429s sent. */
  rateLimited: number;
  faults: Record<FaultKind, number>;
  unauthorized: number;
  /** Most requests in flight at once. */
  peakConcurrency: number;
  /** Epoch second of arrival -> requests that arrived in it. */
  perSecond: Record<number, number>;
  /** Epoch second of the answer -> 429s sent in it. */
  rateLimitedPerSecond: Record<number, number>;
  maxPerSecond: number;
  /** TCP connections opened by clients: a client that keeps its connections alive opens few. */
  connections: number;
  /** 200 answers whose body declared failure (shapes.failureEnvelopeRate, echoCredential 200). */
  failureEnvelopes: number;
}

export interface Sandbox {
  /** "http://127.0.0.1:PORT"; clients append /api/v1/... */
  url: string;
  apiKey: string;
  /** What the sandbox serves, before drift; routes read through the same accessors. */
  data: SandboxDataset;
  stats(): SandboxStats;
  resetStats(): void;
  setKnobs(knobs: KnobsPatch): void;
  /** Closes the server and every open socket promptly, even with slow responses pending. */
  close(): Promise<void>;
}
