/**
 * The project's typed errors. Each carries the context an operator needs to act (operation,
 * status, partition...) and never a credential: messages are built from names, statuses and the
 * caller's own parameters, and the upstream's own words reach them only through the HTTP client,
 * which redacts the key from every answer about a failure first (an upstream may echo it).
 */

export type ErrorContext = Readonly<Record<string, string | number | boolean | null | undefined>>;

/** What a thrown value says: an Error's message, anything else as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class EtlError extends Error {
  readonly context: ErrorContext;

  constructor(message: string, context: ErrorContext = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.context = context;
  }
}

export interface ConfigProblem {
  readonly field: string;
  readonly problem: string;
}

/** Configuration values (environment or config file) are missing or invalid: one line each. */
export class ConfigError extends EtlError {
  readonly problems: readonly ConfigProblem[];

  constructor(source: string, problems: readonly ConfigProblem[]) {
    super(problems.map((p) => `${source}: ${p.field}: ${p.problem}`).join("\n"), {
      source,
      field: problems[0]?.field,
    });
    this.problems = problems;
  }
}

/**
 * The operator port is taken by another process: the configuration must change, so it is a
 * configuration error (exit 2) that names WORKER_PORT.
 */
export class PortTakenError extends ConfigError {
  constructor(host: string, port: number) {
    super("environment", [
      {
        field: "WORKER_PORT",
        problem: `port ${port} on ${host} is taken (another worker on this machine?): set WORKER_PORT to a free port, or to 0 to pick one`,
      },
    ]);
  }
}

/** The upstream answered the next page with the page before: it ignores the paging parameters. */
export class PagingError extends EtlError {
  constructor(stream: string, partition: string, offset: number) {
    super(
      `${stream} ${partition}: the upstream returned the same page again at offset ${offset}; it seems to ignore paging`,
      { stream, partition, offset },
    );
  }
}

/** A replay cannot load a sync whole: some of the responses it read were pruned since. */
export class ReplayIncompleteError extends EtlError {
  constructor(stream: string, partition: string, missing: number) {
    super(
      `${stream} ${partition}: ${missing} of the responses this sync read are no longer stored (keep_responses_days); not replayed`,
      { stream, partition, missing },
    );
  }
}

/** A replay cannot read a sync's pages as it read them: its stored responses fit none of them. */
export class ReplayPagesError extends EtlError {
  constructor(stream: string, partition: string) {
    super(
      `${stream} ${partition}: the stored responses this sync read do not fit the pages it recorded; not replayed`,
      { stream, partition },
    );
  }
}

/** A service the command needs (Redis) did not answer in time: nothing was done. */
export class UnreachableError extends EtlError {
  constructor(service: string, variable: string, url: string, reason: string) {
    super(
      `${service} unreachable at ${url} (${reason}): nothing was done; is it running, and is ${variable} right?`,
      { service, url },
    );
  }
}

/**
 * A migration gave up waiting for a lock another session held (the migration lock, or a table a
 * migration alters): nothing was migrated. `holders` names those sessions.
 */
export class LockWaitError extends EtlError {
  constructor(lock: string, waitedMs: number, holders: string, pids: readonly number[]) {
    const end =
      pids.length === 0
        ? ""
        : `, or end it: select pg_terminate_backend(${pids.join("), pg_terminate_backend(")})`;
    super(
      `gave up after ${Math.ceil(waitedMs / 1000)} s waiting for ${lock}, held by ${holders}; nothing was migrated: run again once it lets go${end}`,
      { lock, waitedMs, pids: pids.join(",") },
    );
  }
}

/** A command-line argument is invalid; nothing was done. */
export class UsageError extends EtlError {}

/** A parameter given to an API operation is invalid; nothing was sent. */
export class ParameterError extends EtlError {
  constructor(operation: string, field: string, problem: string) {
    super(`${operation}: invalid parameter ${field}: ${problem}`, { operation, field });
  }
}

/** A stored response declares failure: a replay loads nothing from it and changes no row. */
export class StoredFailureError extends EtlError {
  constructor(stream: string, partition: string, operation: string, upstreamMessage: string) {
    super(
      `${stream} ${partition}: a stored response of ${operation} declares failure (${upstreamMessage}); not loaded`,
      { stream, partition, operation },
    );
  }
}

/**
 * A column could not be added or widened: readers held the table through every wait. Retried as
 * the partition's job is (the rows wait with it); never a reason to store a value narrowed.
 */
export class SchemaChangeBusyError extends EtlError {
  constructor(table: string, attempts: number, cause: unknown) {
    super(
      `${table}: a column could not be added or widened: the table stayed locked by other sessions through ${attempts} waits (long queries?); the partition is tried again`,
      { table, attempts },
      { cause },
    );
  }
}

/** The analytics views could not be rebuilt: readers held them through every wait. */
export class AnalyticsBusyError extends EtlError {
  constructor(attempts: number, cause: unknown) {
    super(
      `the analytics views could not be rebuilt for the roles' new columns: they stayed locked by other sessions through ${attempts} waits (long queries?); the next run tries again`,
      { attempts },
      { cause },
    );
  }
}
