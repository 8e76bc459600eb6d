import type { Kysely } from "kysely";
import { changeEvidence } from "./change-evidence.js";
import { labelEvidence } from "./label-evidence.js";
import { placementEvidence } from "./placement-evidence.js";
import { type Candidate, candidatesOf, fieldName } from "./role-candidates.js";
import { decide, type Resolution } from "./role-decision.js";
import type { Evidence } from "./role-evidence.js";
import {
  ASSET_TITLE,
  PLACEMENT_REMOVED_AT,
  PLAYLIST_FOLLOWERS,
  PRODUCT_TITLE,
  REPORTED_CHANGE,
  type Role,
  roleKey,
  TREND_ITEM_LABEL,
  TREND_ITEM_UNITS,
} from "./roles.js";
import { titleEvidence, type TitledTable } from "./title-evidence.js";
import { unitsEvidence } from "./units-evidence.js";

/** The roles set in etl.config.json: `{"<role>[.<scope>]": "<field or column>"}`. */
export type RoleSettings = Readonly<Record<string, string>>;

const TITLED: ReadonlyMap<Role, TitledTable> = new Map([
  [PRODUCT_TITLE, { table: "catalogue.products", id: "product_id", selection: "product" }],
  [ASSET_TITLE, { table: "catalogue.assets", id: "asset_id", selection: "asset" }],
]);

/** A scope's own setting wins over the role's. */
function settingOf(settings: RoleSettings, role: Role, scope: string): string | undefined {
  return settings[roleKey(role, scope)] ?? settings[role.name];
}

/**
 * Where a scope has rows but nothing to check them against (no totals for that day, say), the
 * column the role's other scopes were inferred to, when it is a candidate here too: an upstream
 * names a field one way throughout, far more often than not.
 */
function borrowed(
  role: Role,
  own: Resolution,
  evidence: Evidence,
  others: readonly Resolution[],
): Resolution {
  const nothingChecked = evidence.candidates.every((e) => e.checked === 0);
  if (own.how !== "unresolved" || evidence.rows === 0 || !nothingChecked) return own;
  const columns = new Set(
    others.filter((r) => r.how === "inferred" && r.column !== null).map((r) => r.column),
  );
  const chosen = evidence.candidates.find((e) => columns.has(e.candidate.column));
  if (columns.size !== 1 || !chosen) return own;
  const from = others.filter((r) => r.column === chosen.candidate.column).map((r) => r.scope);
  return {
    ...own,
    how: "inferred",
    column: chosen.candidate.column,
    field: fieldName(chosen.candidate.field),
    type: chosen.candidate.type,
    summary: `${fieldName(chosen.candidate.field)} as in ${from.join(", ")}: nothing to check it against here yet (${evidence.test})`,
    evidence: {
      ...own.evidence,
      candidates: own.evidence.candidates.map((c) => ({
        ...c,
        verdict: c.column === chosen.candidate.column ? "chosen" : c.verdict,
      })),
    },
  };
}

async function scopedRole(
  db: Kysely<unknown>,
  role: Role,
  settings: RoleSettings,
  evidenceOf: (scope: string, candidates: readonly Candidate[]) => Promise<Evidence>,
): Promise<Resolution[]> {
  const candidates = await candidatesOf(db, role);
  // One scope after another: a large account's evidence takes seconds a scope, and ten at once
  // would wait for the pool's connections longer than it lets a caller wait.
  const decided: { evidence: Evidence; resolution: Resolution }[] = [];
  for (const scope of role.scopes) {
    const evidence = await evidenceOf(scope, candidates);
    decided.push({
      evidence,
      resolution: decide(role, scope, evidence, settingOf(settings, role, scope)),
    });
  }
  const resolutions = decided.map((d) => d.resolution);
  return decided.map(({ evidence, resolution }) =>
    borrowed(role, resolution, evidence, resolutions),
  );
}

function candidateOf(resolution: Resolution | undefined): Candidate | null {
  if (!resolution?.column || resolution.field === null || resolution.type === null) return null;
  return { column: resolution.column, field: resolution.field.split("."), type: resolution.type };
}

/**
 * Every role of the analytics views resolved from the warehouse as it is (no request): the
 * trends' units and labels first, then the titles they are compared with, then the rest.
 */
export async function resolveRoles(
  db: Kysely<unknown>,
  settings: RoleSettings,
): Promise<Resolution[]> {
  const units = await scopedRole(db, TREND_ITEM_UNITS, settings, (scope, candidates) =>
    unitsEvidence(db, scope, candidates),
  );
  const labels = await scopedRole(db, TREND_ITEM_LABEL, settings, (scope, candidates) =>
    labelEvidence(db, scope, candidates),
  );
  const titles: Resolution[] = [];
  for (const [role, titled] of TITLED) {
    const label = candidateOf(labels.find((l) => l.scope === titled.selection));
    titles.push(
      ...(await scopedRole(db, role, settings, (_, candidates) =>
        titleEvidence(db, titled, label, candidates),
      )),
    );
  }
  const change = await scopedRole(db, REPORTED_CHANGE, settings, (_, candidates) =>
    changeEvidence(db, candidates),
  );
  const placements: Resolution[] = [];
  for (const role of [PLAYLIST_FOLLOWERS, PLACEMENT_REMOVED_AT]) {
    placements.push(
      ...(await scopedRole(db, role, settings, (_, candidates) =>
        placementEvidence(db, role, candidates),
      )),
    );
  }
  return [...units, ...labels, ...titles, ...change, ...placements];
}
