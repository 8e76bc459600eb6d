import { type Candidate, fieldName } from "./role-candidates.js";
import type { CandidateEvidence, Evidence } from "./role-evidence.js";
import { type Role, roleKey } from "./roles.js";

/**
 * How a role was resolved in a scope: set in the configuration, or inferred from the data; or
 * not: no rows to decide from yet (pending), no column that could carry it (absent), none that
 * fits (unresolved), or several that fit alike (ambiguous).
 */
export type ResolutionHow =
  "configured" | "inferred" | "pending" | "absent" | "unresolved" | "ambiguous";

/** One candidate as the resolution weighed it. */
export interface WeighedCandidate {
  readonly column: string;
  readonly field: string;
  readonly matched: number;
  readonly checked: number;
  readonly verdict: "chosen" | "lost" | "tied" | "excluded";
  readonly why: string;
}

/** A role's column in one scope, with the evidence it was chosen on. */
export interface Resolution {
  readonly role: string;
  readonly scope: string;
  readonly table: string;
  /** The column the views read, or null when the role is not resolved. */
  readonly column: string | null;
  readonly field: string | null;
  readonly type: string | null;
  readonly how: ResolutionHow;
  /** One sentence: what it resolved to and why, or why not and what settles it. */
  readonly summary: string;
  readonly evidence: {
    readonly cases: string;
    readonly test: string;
    readonly rows: number;
    readonly candidates: readonly WeighedCandidate[];
  };
}

/** Of the cases checked, the share a candidate must match to be chosen. */
const MATCHED_SHARE = 0.5;

const eligible = (e: CandidateEvidence) =>
  e.excluded === null && e.matched > 0 && e.matched >= e.checked * MATCHED_SHARE;

/** What settles a role the data cannot: its key in etl.config.json. */
export function settleHint(role: Role, scope: string): string {
  return `set "roles": {"${roleKey(role, scope)}": "<field>"} in etl.config.json`;
}

function counted(e: CandidateEvidence, cases: string): string {
  return `${e.matched} of ${e.checked} ${cases}`;
}

function weigh(
  evidence: Evidence,
  chosen: Candidate | null,
  tied: readonly Candidate[],
): WeighedCandidate[] {
  return evidence.candidates.map((e) => {
    const { column } = e.candidate;
    let verdict: WeighedCandidate["verdict"] = "lost";
    let why = `matched ${counted(e, evidence.cases)}`;
    if (e.excluded !== null) {
      verdict = "excluded";
      why = e.excluded;
    } else if (chosen?.column === column) verdict = "chosen";
    else if (tied.some((t) => t.column === column)) verdict = "tied";
    return {
      column,
      field: fieldName(e.candidate.field),
      matched: e.matched,
      checked: e.checked,
      verdict,
      why,
    };
  });
}

function resolution(
  role: Role,
  scope: string,
  evidence: Evidence,
  how: ResolutionHow,
  chosen: Candidate | null,
  summary: string,
  tied: readonly Candidate[] = [],
): Resolution {
  return {
    role: role.name,
    scope,
    table: role.table,
    column: chosen?.column ?? null,
    field: chosen ? fieldName(chosen.field) : null,
    type: chosen?.type ?? null,
    how,
    summary,
    evidence: {
      cases: evidence.cases,
      test: evidence.test,
      rows: evidence.rows,
      candidates: weigh(evidence, chosen, tied),
    },
  };
}

const named = (candidates: readonly { readonly candidate: Candidate }[]) =>
  candidates.map((c) => fieldName(c.candidate.field)).join(", ");

/** The role's column as the configuration names it: by the upstream's field, or the column. */
function configuredResolution(
  role: Role,
  scope: string,
  evidence: Evidence,
  configured: string,
): Resolution {
  const found = evidence.candidates.find(
    (e) => e.candidate.column === configured || fieldName(e.candidate.field) === configured,
  );
  const key = roleKey(role, scope);
  if (!found) {
    const how = evidence.rows === 0 ? "pending" : "unresolved";
    const known = evidence.candidates.length === 0 ? "none" : named(evidence.candidates);
    return resolution(
      role,
      scope,
      evidence,
      how,
      null,
      `roles.${key} names "${configured}", which is no column of ${role.table} that can hold ${role.meaning} (candidates: ${known})`,
    );
  }
  return resolution(
    role,
    scope,
    evidence,
    "configured",
    found.candidate,
    `${fieldName(found.candidate.field)} (column ${found.candidate.column}), as roles.${key} sets it; the data: ${counted(found, evidence.cases)} checked`,
  );
}

/**
 * The one candidate the role's name hint points to: the only one whose name says it, else the
 * only one whose whole name is one of the hint's words (`title` before `artist_name`); none else.
 */
function byHint(role: Role, candidates: readonly CandidateEvidence[]) {
  const named = candidates.filter((e) => role.hint.test(fieldName(e.candidate.field)));
  if (named.length === 1) return named[0];
  const whole = new RegExp(`^(?:${role.hint.source})$`, "i");
  const exact = named.filter((e) => whole.test(e.candidate.column));
  return exact.length === 1 ? exact[0] : undefined;
}

/**
 * No candidate fits: with nothing yet to check any against, the one its name points to, else
 * pending; with cases checked, unresolved.
 */
function unfit(role: Role, scope: string, evidence: Evidence): Resolution {
  const open = evidence.candidates.filter((e) => e.excluded === null);
  if (open.every((e) => e.checked === 0)) {
    const named = byHint(role, open);
    if (named) {
      const field = fieldName(named.candidate.field);
      const summary = `${field} by its name alone: nothing to check it against yet (${evidence.test})`;
      return resolution(role, scope, evidence, "inferred", named.candidate, summary);
    }
    const summary = `nothing to check ${role.meaning} against yet (${evidence.test}; candidates: ${describe(evidence)})`;
    return resolution(role, scope, evidence, "pending", null, summary);
  }
  const summary = `no field fits ${role.meaning} (${evidence.test}; candidates: ${describe(evidence)}); ${settleHint(role, scope)}`;
  return resolution(role, scope, evidence, "unresolved", null, summary);
}

/**
 * Of the candidates that fit, the one that matched the most cases, then with the highest score,
 * a tie broken by the role's name hint alone; several alike are ambiguous.
 */
function bestFit(
  role: Role,
  scope: string,
  evidence: Evidence,
  fit: readonly CandidateEvidence[],
): Resolution {
  const most = Math.max(...fit.map((e) => e.matched));
  const best = Math.max(...fit.filter((e) => e.matched === most).map((e) => e.score ?? 0));
  const top = fit.filter((e) => e.matched === most && (e.score ?? 0) === best);
  const chosen = top.length === 1 ? top[0] : byHint(role, top);
  if (!chosen) {
    const summary = `${named(top)} fit ${role.meaning} alike (${counted(top[0] as CandidateEvidence, evidence.cases)}: ${evidence.test}); ${settleHint(role, scope)}`;
    const tied = top.map((e) => e.candidate);
    return resolution(role, scope, evidence, "ambiguous", null, summary, tied);
  }
  const others = fit.filter((e) => e !== chosen);
  const tieNote =
    top.length > 1
      ? `; ${named(top.filter((e) => e !== chosen))} matched as many, its name decided`
      : "";
  const rest =
    others.length > 0 && top.length === 1
      ? `; next, ${describe({ ...evidence, candidates: others })}`
      : "";
  const summary = `${fieldName(chosen.candidate.field)}: ${counted(chosen, evidence.cases)} (${evidence.test})${tieNote}${rest}`;
  return resolution(role, scope, evidence, "inferred", chosen.candidate, summary);
}

/**
 * Decides a role in one scope from its evidence: the configuration's choice wins; else the
 * best of the candidates that matched at least half the cases they were checked on (bestFit);
 * else none, saying why and what settles it.
 */
export function decide(
  role: Role,
  scope: string,
  evidence: Evidence,
  configured: string | undefined,
): Resolution {
  if (configured !== undefined) return configuredResolution(role, scope, evidence, configured);
  if (evidence.rows === 0) {
    return resolution(role, scope, evidence, "pending", null, `no rows in ${role.table} yet`);
  }
  if (evidence.candidates.length === 0) {
    const summary = `no column of ${role.table} can hold ${role.meaning}: the upstream sends no such field`;
    return resolution(role, scope, evidence, "absent", null, summary);
  }
  const fit = evidence.candidates.filter(eligible);
  return fit.length === 0 ? unfit(role, scope, evidence) : bestFit(role, scope, evidence, fit);
}

function describe(evidence: Evidence): string {
  return evidence.candidates
    .map((e) =>
      e.excluded === null
        ? `${fieldName(e.candidate.field)} ${counted(e, evidence.cases)}`
        : `${fieldName(e.candidate.field)} excluded, ${e.excluded}`,
    )
    .join(", ");
}

/** Whether a resolution is worth a warning: the views' figure it serves is null or unsure. */
export function warns(role: Role, resolved: Pick<Resolution, "how">): boolean {
  if (resolved.how === "unresolved" || resolved.how === "ambiguous") return true;
  return resolved.how === "absent" && role.required;
}
