import { isIP } from "node:net";
import { displayUrl } from "../config/display-url.js";
import type { EnvConfig } from "../config/env-schema.js";
import { NEVER_CONNECTED } from "../http/upstream-errors.js";

interface SocketFailure {
  readonly code: string;
  readonly address?: string;
  readonly port?: number;
  readonly hostname?: string;
}

/** The socket errors in an error, its causes and, for a host of several addresses, each try. */
function socketFailures(error: unknown, depth = 0): SocketFailure[] {
  if (typeof error !== "object" || error === null || depth > 8) return [];
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  const own = typeof code === "string" && NEVER_CONNECTED.has(code) ? [error as SocketFailure] : [];
  const tries: unknown[] = Array.isArray(errors) ? (errors as unknown[]) : [];
  return [...own, ...[cause, ...tries].flatMap((inner) => socketFailures(inner, depth + 1))];
}

export interface Service {
  readonly name: string;
  /** The environment variable that says where it is. */
  readonly variable: string;
  readonly url: string;
  /** What the connection met, as the error says it. */
  readonly reason: string;
}

function servicesOf(env: EnvConfig): (Omit<Service, "reason"> & { defaultPort: number })[] {
  const upstream = env.MUSIC_API_URL;
  return [
    { name: "Postgres", variable: "DATABASE_URL", url: env.DATABASE_URL, defaultPort: 5432 },
    { name: "Redis", variable: "REDIS_URL", url: env.REDIS_URL, defaultPort: 6379 },
    ...(upstream
      ? [
          {
            name: "the upstream",
            variable: "MUSIC_API_URL",
            url: upstream,
            defaultPort: upstream.startsWith("https:") ? 443 : 80,
          },
        ]
      : []),
  ];
}

function failedAt(failure: SocketFailure, url: string, defaultPort: number): boolean {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  if (failure.hostname !== undefined) return failure.hostname === host;
  if (failure.port !== Number(parsed.port || defaultPort)) return false;
  // A host given by name: its addresses are not known here, the port decides.
  return isIP(host) === 0 || failure.address === host;
}

/**
 * The configured service a connection error failed to reach, found by the address it tried,
 * so that the message names the variable to fix: null for any other error.
 */
export function unreachableService(error: unknown, env: EnvConfig): Service | null {
  const failures = socketFailures(error);
  for (const { defaultPort, ...service } of servicesOf(env)) {
    if (failures.some((each) => failedAt(each, service.url, defaultPort))) {
      return { ...service, reason: connectionProblem(error) };
    }
  }
  return null;
}

/** An error's message; a host of several addresses fails with an empty one, its tries do not. */
export function connectionProblem(error: unknown): string {
  const { message, errors } = error as { message?: string; errors?: unknown[] };
  if (message) return message;
  const tried = (errors ?? []).map((each) => (each as Error).message).filter(Boolean);
  return tried.length > 0 ? tried.join("; ") : String(error);
}

/** One line for a service that could not be reached, naming what to check. */
export function unreachableMessage(service: Service): string {
  return `cannot reach ${service.name} at ${displayUrl(service.url)} (${service.reason}): is it running, and is ${service.variable} right?`;
}
