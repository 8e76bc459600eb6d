import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "./free-port.js";

/**
 * A Postgres server of the test's own on a free port, which the test may stop and start: the
 * machine's Postgres on 5432 is shared by every other test and is never stopped.
 */
export interface PrivatePostgres {
  /** postgres://root@127.0.0.1:PORT (add a database name). */
  readonly url: string;
  start(): void;
  /** Stops at once, as a crash or a failover would: clients lose their connections. */
  stop(): void;
  /** Stops it and removes its files. */
  remove(): void;
}

const BIN = `/usr/lib/postgresql/${readdirSync("/usr/lib/postgresql").sort().at(-1) ?? ""}/bin`;

/** initdb refuses root: as root, the server runs as the postgres system user. */
function asServerUser(command: string, args: readonly string[]): void {
  const root = userInfo().uid === 0;
  const [file, argv] = root
    ? ["runuser", ["-u", "postgres", "--", join(BIN, command), ...args]]
    : [join(BIN, command), [...args]];
  execFileSync(file, argv, { stdio: "ignore" });
}

export async function privatePostgres(): Promise<PrivatePostgres> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "music-etl-pg-"));
  chmodSync(dir, 0o777);
  const data = join(dir, "data");
  asServerUser("initdb", ["-D", data, "--username=root", "--auth=trust", "-E", "UTF8"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  let running = false;
  const server: PrivatePostgres = {
    url: `postgres://root@127.0.0.1:${port}`,
    start() {
      const log = join(dir, "log");
      try {
        asServerUser("pg_ctl", ["-D", data, "-o", options, "-w", "-l", log, "start"]);
      } catch (error) {
        // pg_ctl says only that it failed; the server's log says why (a port taken, say).
        const said = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").slice(-5) : [];
        throw new Error(`the private Postgres on port ${port} did not start: ${said.join(" | ")}`, {
          cause: error,
        });
      }
      running = true;
    },
    stop() {
      if (!running) return;
      running = false;
      asServerUser("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
    },
    remove() {
      server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  // Should the test runner die before afterAll, the server must not outlive it.
  process.once("exit", () => server.remove());
  return server;
}

/** Creates `name` on the server. */
export async function createDatabaseOn(serverUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: `${serverUrl}/postgres` });
  await client.connect();
  try {
    await client.query(`create database ${pg.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  return `${serverUrl}/${name}`;
}
