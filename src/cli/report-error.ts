import { ConfigError, EtlError, ParameterError, UsageError } from "../errors.js";
import { AuthError } from "../http/upstream-errors.js";
import { isMissingDatabase, missingDatabaseMessage } from "../warehouse/missing-database.js";
import type { EnvConfig } from "../config/env-schema.js";
import { ExitCode } from "./exit-codes.js";
import { unreachableMessage, unreachableService } from "./unreachable-service.js";

/**
 * One clear message on stderr and the exit code that matches the kind of failure; `env` (when it
 * is valid) names the variable behind a service that could not be reached.
 */
export function reportError(
  error: unknown,
  write: (line: string) => void,
  env: EnvConfig | null = null,
): ExitCode {
  if (isMissingDatabase(error)) {
    write(`error: ${missingDatabaseMessage(error as Error)}`);
    return ExitCode.usage;
  }
  if (error instanceof ConfigError) {
    for (const line of error.message.split("\n")) write(`config error: ${line}`);
    return ExitCode.usage;
  }
  if (error instanceof ParameterError || error instanceof UsageError) {
    write(`error: ${error.message}`);
    return ExitCode.usage;
  }
  if (error instanceof AuthError) {
    write(`error: ${error.message}`);
    return ExitCode.auth;
  }
  const service = env && unreachableService(error, env);
  if (service) {
    write(`error: ${unreachableMessage(service)}`);
    return ExitCode.failure;
  }
  write(
    `error: ${error instanceof EtlError ? error.message : String((error as Error)?.message ?? error)}`,
  );
  return ExitCode.failure;
}
