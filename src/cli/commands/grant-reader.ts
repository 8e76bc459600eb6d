import { envSchema } from "../../config/env-schema.js";
import { readEnvironment } from "../../config/load-config.js";
import { toConfigProblems } from "../../config/zod-problems.js";
import { ConfigError, UsageError } from "../../errors.js";
import { createWarehouse } from "../../warehouse/database.js";
import { migrateToLatest } from "../../warehouse/migrate.js";
import {
  DEFAULT_READER_LIMITS,
  grantReaderRole,
  type ReaderSessionLimits,
  readerRoleNameProblem,
} from "../../warehouse/reader-role.js";
import { scramSha256Verifier } from "../../warehouse/scram-verifier.js";
import { ExitCode } from "../exit-codes.js";
import type { Output } from "../output.js";
import { wholeNumberOption } from "../whole-number-option.js";

export interface GrantReaderOptions {
  readonly login?: boolean;
  readonly passwordEnv?: string;
  readonly statementTimeout?: string;
  readonly connectionLimit?: string;
}

/** --statement-timeout and --connection-limit, checked before anything runs. */
function sessionLimits(options: GrantReaderOptions): ReaderSessionLimits {
  const seconds = wholeNumberOption("--statement-timeout", options.statementTimeout, 1, 86_400);
  const connections = wholeNumberOption("--connection-limit", options.connectionLimit, -1, 10_000);
  return {
    statementTimeoutMs:
      seconds === undefined ? DEFAULT_READER_LIMITS.statementTimeoutMs : seconds * 1000,
    connectionLimit: connections ?? DEFAULT_READER_LIMITS.connectionLimit,
  };
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The password's verifier, from the variable named by --password-env; never the password itself. */
function passwordVerifier(options: GrantReaderOptions): string | undefined {
  const name = options.passwordEnv;
  if (name === undefined) return undefined;
  if (!options.login)
    throw new UsageError("--password-env needs --login (a NOLOGIN role has no use for a password)");
  if (!ENV_NAME.test(name)) {
    throw new UsageError(
      `--password-env takes the name of an environment variable, not ${JSON.stringify(name)}`,
    );
  }
  const password = readEnvironment()[name];
  if (password === undefined) {
    throw new UsageError(`--password-env: the environment variable ${name} is not set or empty`);
  }
  return scramSha256Verifier(password);
}

/**
 * Creates (when missing) a read-only role for BI tools and grants it the warehouse: the business
 * schemas and the analytics views, nothing of etl, no write and no create anywhere, no temporary
 * table, large object or advisory lock. Exits 4 when the server kept one of those last from being
 * taken away (only a superuser can revoke the functions' EXECUTE).
 */
export async function grantReaderCommand(
  role: string,
  options: GrantReaderOptions,
  out: Output,
): Promise<ExitCode> {
  const problem = readerRoleNameProblem(role);
  if (problem) throw new UsageError(problem);
  const verifier = passwordVerifier(options);
  const limits = sessionLimits(options);
  const envResult = envSchema.safeParse(readEnvironment());
  if (!envResult.success)
    throw new ConfigError("environment", toConfigProblems(envResult.error, false));
  const db = createWarehouse(envResult.data.DATABASE_URL, { maxConnections: 2 });
  try {
    await migrateToLatest(db);
    const outcome = await grantReaderRole(db, {
      role,
      login: options.login === true,
      limits,
      ...(verifier === undefined ? {} : { passwordVerifier: verifier }),
    });
    const login = outcome.canLogin
      ? `LOGIN${outcome.passwordSet ? ", password set from $" + String(options.passwordEnv) : ""}`
      : "NOLOGIN";
    out.line(`${outcome.created ? "created role" : "role exists:"} ${role} (${login})`);
    out.line(
      `granted USAGE and SELECT on ${outcome.relations.map((r) => `${r.schema} (${r.count})`).join(", ")} in ${outcome.database}`,
    );
    out.line(
      `tables and views created later in those schemas by ${outcome.defaultPrivilegesFor.join(", ")} are readable too`,
    );
    out.line("no access to etl: stream freshness is in analytics.stream_freshness");
    out.line(
      `sessions in ${outcome.database}: ${outcome.settings.join(", ")}; at most ${outcome.connectionLimit < 0 ? "unlimited" : outcome.connectionLimit} at once`,
    );
    out.line(
      `checked: ${role} cannot insert, update, delete, truncate or create anything in ${outcome.database}`,
    );
    if (outcome.pipelineRoles.length > 0) {
      out.line(
        `temporary tables and advisory locks kept for the pipeline's roles: ${outcome.pipelineRoles.join(", ")}`,
      );
    }
    for (const power of outcome.notTakenAway) out.line(`not taken away: ${role} can ${power}`);
    if (outcome.notTakenAway.length > 0) return ExitCode.attention;
    out.line(
      `checked: ${role} cannot create temporary tables or large objects, nor take advisory locks`,
    );
    out.line(
      `${role} can still lift its own timeouts (no Postgres role can be kept from it): migrate waits for no lock longer than its --lock-timeout`,
    );
    return ExitCode.ok;
  } finally {
    await db.destroy();
  }
}
