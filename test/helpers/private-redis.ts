import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { freePort } from "./free-port.js";

/**
 * A redis-server of the test's own on a free port, which the test may kill and restart: the
 * machine's Redis on 6379 is shared by every other test and is never stopped.
 */
export interface PrivateRedis {
  readonly port: number;
  readonly url: string;
  start(): Promise<void>;
  /** SIGKILL, like a crash: no shutdown handshake with the clients. */
  kill(): Promise<void>;
  /** Kills it and removes its files (those of a persistent one). */
  remove(): Promise<void>;
}

/**
 * `persistent`: an append-only file synced on every write, as in production (docker-compose's
 * Redis): a killed and restarted server comes back with the queue it had.
 */
export async function privateRedis(options: { persistent?: boolean } = {}): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = options.persistent ? mkdtempSync(join(tmpdir(), "music-etl-redis-")) : null;
  const persistence = dir
    ? ["--appendonly", "yes", "--appendfsync", "always", "--save", "", "--dir", dir]
    : ["--save", "", "--appendonly", "no"];
  let child: ChildProcess | null = null;
  const removeFiles = () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
  // Should the test runner die before afterAll, the server must not outlive it.
  process.once("exit", () => {
    child?.kill("SIGKILL");
    removeFiles();
  });
  const server: PrivateRedis = {
    port,
    async start() {
      if (child) throw new Error("the private redis is already running");
      const started = spawn(
        "redis-server",
        [...["--port", String(port), "--bind", "127.0.0.1"], ...persistence, "--daemonize", "no"],
        { stdio: "ignore" },
      );
      child = started;
      await waitUntilAnswers(port, started);
    },
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = once(running, "exit");
      running.kill("SIGKILL");
      await exited;
    },
    async remove() {
      await server.kill();
      removeFiles();
    },
  };
  return server;
}

async function waitUntilAnswers(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode})`);
    const probe = new Redis({
      port,
      host: "127.0.0.1",
      lazyConnect: true,
      retryStrategy: () => null,
    });
    probe.on("error", () => undefined);
    try {
      await probe.connect();
      if ((await probe.ping()) === "PONG") return;
    } catch {
      if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not start`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      probe.disconnect();
    }
  }
}
