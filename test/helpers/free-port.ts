import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { randomInt } from "node:crypto";

/** Where Linux draws the local ports of outgoing connections, unless it says otherwise. */
const DEFAULT_EPHEMERAL_LOW = 32_768;
/** How many ports below that range a test's server may take. */
const SPAN = 12_000;

/** The lowest local port the kernel gives an outgoing connection. */
function ephemeralLow(): number {
  try {
    const low = Number(
      readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").split(/\s+/)[0],
    );
    return Number.isInteger(low) && low > 1024 ? low : DEFAULT_EPHEMERAL_LOW;
  } catch {
    return DEFAULT_EPHEMERAL_LOW;
  }
}

async function isFree(port: number): Promise<boolean> {
  const server = createServer();
  server.listen(port, "127.0.0.1");
  const outcome = await Promise.race([
    once(server, "listening").then(() => true),
    once(server, "error").then(() => false),
  ]);
  if (outcome) {
    server.close();
    await once(server, "close");
  }
  return outcome;
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
  for (let tries = 0; tries < 100; tries += 1) {
    const port = randomInt(low, high + 1);
    if (given.has(port) || !(await isFree(port))) continue;
    given.add(port);
    return port;
  }
  throw new Error(`no free port found between ${low} and ${high}`);
}
