import type { Resolution } from "../analytics/role-decision.js";
import type { RoleChange } from "../analytics/role-records.js";
import type { RecordedRole } from "../analytics/role-records.js";
import { roleWarnings, type Settlement } from "../analytics/settle-roles.js";
import { ExitCode } from "./exit-codes.js";
import { table } from "./output.js";

/** As many role changes as a run's block lists. */
const LISTED = 20;

const scoped = (role: string, scope: string) => (scope === "" ? role : `${role}.${scope}`);

function changeText(change: RoleChange): string {
  const to =
    change.toColumn === null ? `none (${change.toHow})` : `${change.toColumn} (${change.toHow})`;
  const from = change.fromColumn ?? (change.fromHow === null ? null : `none (${change.fromHow})`);
  return `${scoped(change.role, change.scope)}: ${from === null ? "" : `${from} → `}${to}`;
}

/**
 * What settling the roles after a run did and found, for its summary: the days of the sales
 * roll-ups summed again, the roles whose column changed (news: the views were rebuilt with them)
 * and the warnings of those the views cannot rely on, each naming its candidates and the key of
 * etl.config.json that settles it.
 */
export function settlementLines(
  settlement: Pick<Settlement, "changes" | "warnings" | "rolledUp"> | null,
): string[] {
  if (!settlement) return [];
  const { changes, warnings, rolledUp } = settlement;
  const lines: string[] = [];
  if (rolledUp.days > 0) {
    lines.push(
      "",
      `sales roll-ups: ${rolledUp.days} days written since summed again, in ${rolledUp.months} months of a selection type`,
    );
  }
  if (changes.length > 0) {
    lines.push(
      "",
      `${changes.length} roles resolved anew, the views rebuilt (etl.role_changes; \`etl roles\`):`,
    );
    lines.push(...changes.slice(0, LISTED).map((change) => `  ${changeText(change)}`));
    if (changes.length > LISTED) lines.push(`  ... and ${changes.length - LISTED} more`);
  }
  if (warnings.length > 0) {
    lines.push(
      "",
      `${warnings.length} roles the analytics views cannot rely on (their figures are null; \`etl roles\`):`,
    );
    lines.push(...warnings.map((warning) => `  ${warning}`));
  }
  return lines;
}

/** `etl roles`' table: each role and scope, its column, how it was resolved, and why. */
export function roleTable(
  resolutions: readonly Pick<
    Resolution,
    "role" | "scope" | "column" | "field" | "how" | "summary"
  >[],
): string[] {
  return table([
    ["role", "column", "field", "how", "evidence"],
    ...resolutions.map((r) => [
      scoped(r.role, r.scope),
      r.column ?? "-",
      r.field ?? "-",
      r.how,
      r.summary,
    ]),
  ]);
}

/** A run's exit code given its settlement: a role the views cannot rely on is attention (4). */
export function settledExitCode(
  code: ExitCode,
  settlement: Pick<Settlement, "warnings"> | null,
): ExitCode {
  return code === ExitCode.ok && (settlement?.warnings.length ?? 0) > 0 ? ExitCode.attention : code;
}

/**
 * The roles as last resolved in one line, then a line per role the views cannot rely on: how
 * many are resolved and how, for `etl status` and `etl check`.
 */
export function recordedRoleLines(recorded: readonly RecordedRole[]): {
  readonly summary: string;
  readonly warnings: readonly string[];
} {
  const count = (how: string) => recorded.filter((r) => r.how === how).length;
  const resolved = count("inferred") + count("configured");
  const others = ["pending", "absent", "unresolved", "ambiguous"]
    .map((how) => [how, count(how)] as const)
    .filter(([, n]) => n > 0)
    .map(([how, n]) => `${n} ${how}`);
  const rest = others.length > 0 ? `; ${others.join(", ")}` : "";
  return {
    summary: `${resolved} of ${recorded.length} roles resolved (${count("inferred")} inferred, ${count("configured")} configured)${rest}; \`etl roles\` shows each with its evidence`,
    warnings: roleWarnings(recorded),
  };
}
