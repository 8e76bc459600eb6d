import { request } from "undici";
import type { Sandbox } from "../../sandbox/index.js";

export interface CallResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: unknown;
}

export interface CallOptions {
  method?: "GET" | "POST";
  /** Sent as JSON, also on GET (the trends operations take a body on GET). */
  body?: unknown;
  /** Sent as it is, instead of `body`. */
  rawBody?: string;
  /** Overrides the Authorization header; null sends none. */
  authorization?: string | null;
  headers?: Record<string, string>;
}

/** One request to the sandbox over real HTTP, as a client of the upstream would send it. */
export async function call(
  sandbox: Sandbox,
  path: string,
  options: CallOptions = {},
): Promise<CallResult> {
  const authorization =
    options.authorization === undefined ? `Bearer ${sandbox.apiKey}` : options.authorization;
  const response = await request(`${sandbox.url}${path}`, {
    method: options.method ?? "GET",
    headers: {
      accept: "application/json",
      "content-type": "application/json",
      ...(authorization === null ? {} : { authorization }),
      ...options.headers,
    },
    body:
      options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const text = await response.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text, json };
}

/** The body of a successful call, failing the test with the body when the status is not 200. */
export async function ok<T = unknown>(
  sandbox: Sandbox,
  path: string,
  options: CallOptions = {},
): Promise<T> {
  const result = await call(sandbox, path, options);
  if (result.status !== 200) throw new Error(`${path} answered ${result.status}: ${result.text}`);
  return result.json as T;
}

/** JSON round trip: what a record looks like once it has crossed the wire. */
export function wire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
