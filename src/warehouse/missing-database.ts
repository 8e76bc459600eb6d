/** Postgres's SQLSTATE for a database that does not exist. */
const INVALID_CATALOG_NAME = "3D000";

/**
 * Whether Postgres refused a connection because its database does not exist. Only `migrate`
 * creates one: a mistyped DATABASE_URL must never become a second, empty warehouse.
 */
export function isMissingDatabase(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === INVALID_CATALOG_NAME;
}

/** What to say of such a refusal: Postgres's words, which name the database, and what to do. */
export function missingDatabaseMessage(error: Error): string {
  return `${error.message}: check DATABASE_URL; \`etl migrate\` creates it`;
}
