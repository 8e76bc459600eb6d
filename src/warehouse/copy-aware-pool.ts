import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from "kysely";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";

/**
 * `COPY … FROM STDIN $1` sent through Kysely: a statement of that form (the data as its one
 * parameter, in COPY's text format: a string, or an iterable of chunks that is encoded while
 * Postgres parses what came before) is run with pg-copy-streams, the placeholder left out. Kysely only sends
 * statement text and parameters, and COPY's data goes over the wire as a stream, so the pool
 * hands Kysely clients that tell the two apart. Everything else goes to pg untouched, on the same
 * connection, so a COPY takes part in the transaction it is sent in.
 */
const COPY_FROM_STDIN = /^(\s*copy\s[\s\S]*\sfrom\s+stdin)\s+\$1\s*$/i;

class CopyAwareClient implements PostgresPoolClient {
  constructor(private readonly client: pg.PoolClient) {}

  query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    statement: string | PostgresCursor<R>,
    parameters?: readonly unknown[],
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof statement !== "string") {
      return this.client.query(
        statement as unknown as pg.Submittable,
      ) as unknown as PostgresCursor<R>;
    }
    const copy = COPY_FROM_STDIN.exec(statement);
    if (copy?.[1] && parameters?.length === 1) {
      return this.copy(copy[1], parameters[0]);
    }
    return this.client.query(statement, parameters as unknown[]) as unknown as Promise<
      PostgresQueryResult<R>
    >;
  }

  release(): void {
    this.client.release();
  }

  private async copy(statement: string, data: unknown): Promise<PostgresQueryResult<never>> {
    const stream = this.client.query(copyFrom(statement));
    const chunks = typeof data === "string" ? [data] : (data as Iterable<string>);
    await pipeline(Readable.from(chunks), stream);
    // Kysely counts affected rows only for the commands it knows; COPY's count is reported apart.
    return { command: "SELECT", rowCount: stream.rowCount, rows: [] };
  }
}

/** A pg pool whose clients also take `COPY … FROM STDIN` with its data as the one parameter. */
export class CopyAwarePool implements PostgresPool {
  // The same wrapper for the same pg client: Kysely keeps per-client state keyed by it.
  readonly #wrappers = new WeakMap<pg.PoolClient, CopyAwareClient>();

  constructor(private readonly pool: pg.Pool) {}

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.pool.connect();
    let wrapper = this.#wrappers.get(client);
    if (!wrapper) {
      wrapper = new CopyAwareClient(client);
      this.#wrappers.set(client, wrapper);
    }
    return wrapper;
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}
