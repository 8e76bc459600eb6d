import { AuthError, ConfigError, EtlError, ParameterError, UsageError } from "../errors.js";
import { isMissingDatabase, missingDatabaseMessage } from "../warehouse/missing-database.js";
import { ExitCode } from "./exit-codes.js";

/** One clear message on stderr and the exit code that matches the kind of failure. */
export function reportError(error: unknown, write: (line: string) => void): ExitCode {
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
  write(
    `error: ${error instanceof EtlError ? error.message : String((error as Error)?.message ?? error)}`,
  );
  return ExitCode.failure;
}
