import { hostname } from "node:os";

/**
 * This process as the audit trail names it: the host (a container's is its id) and the process
 * id, enough for an operator to tell which worker ran, or found abandoned, an attempt.
 */
export const PROCESS_IDENTITY = `${hostname()} pid ${process.pid}`;
