import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { randomInt } from "node:crypto";

/** Where Linux draws the local ports of outgoing connections, unless it says otherwise. */
const DEFAULT_EPHEMERAL_LOW = 32_768;
/** How many ports below that range a test's server may take. */
const SPAN = 12_000;

/** The lowest local port the kernel gives an outgoing connection. */
export function ephemeralLow(): number {
  let text: string;
  try {
    text = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8");
  } catch {
    return DEFAULT_EPHEMERAL_LOW;
  }
  const low = Number(text.split(/\s+/)[0]);
  if (!Number.isInteger(low)) throw new Error(`ip_local_port_range reads ${JSON.stringify(text)}`);
  return low;
}

/** Whether a server can listen on `port` now (the listener closed again at once). */
function isFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.once("listening", () => server.close(() => resolve(true)));
    server.listen(port, "127.0.0.1");
  });
}

/** Ports this process handed out: never twice, though a server stopped meanwhile leaves it free. */
const given = new Set<number>();

/**
 * A port for a server of a test's own that binds it later, or binds it again after a stop:
 * below the range the kernel draws outgoing connections' local ports from, where none of the
 * suite's clients can take it meanwhile (a port from `listen(0)` lies in that range, where any of
 * the suite's thousands of connections may take it before the server binds it), and free when
 * chosen.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow() - 1;
  const low = Math.max(1025, high - SPAN);
  if (high - low < 100) throw new Error(`too few ports below the kernel's range: ${low}..${high}`);
  for (let tries = 0; tries < 100; tries += 1) {
    const port = randomInt(low, high + 1);
    if (given.has(port)) continue;
    // Taken before the check, so that calls made at once never check the same port.
    given.add(port);
    if (await isFree(port)) return port;
    given.delete(port);
  }
  throw new Error(`no free port found between ${low} and ${high}`);
}
