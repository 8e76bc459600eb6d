import { hostname } from "node:os";

/**
 * This process as the audit trail names it: the host (a container's is its id) and the process
 * id, enough for an operator to tell which worker ran, or found abandoned, an attempt.
 */
export const PROCESS_IDENTITY = `${hostname()} pid ${process.pid}`;

/** The host and process id a PROCESS_IDENTITY names; null for any other text. */
export function parseProcessIdentity(identity: string): { host: string; pid: number } | null {
  const match = /^(.*) pid (\d+)$/.exec(identity);
  return match ? { host: match[1] ?? "", pid: Number(match[2]) } : null;
}
