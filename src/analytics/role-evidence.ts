import type { Candidate } from "./role-candidates.js";

/** What the data says of one candidate of a role in one scope. */
export interface CandidateEvidence {
  readonly candidate: Candidate;
  /** The cases (days, items, points) where it behaved as the role must. */
  readonly matched: number;
  /** The cases checked. */
  readonly checked: number;
  /** Why it cannot carry the role, whatever it matched; null when it may. */
  readonly excluded: string | null;
  /** Between candidates that matched as many: the higher is likelier (a label's distinct values). */
  readonly score?: number;
}

/** What the data says of every candidate of a role in one scope. */
export interface Evidence {
  /** What a case is, in the plural: "days", "items", "products", "points". */
  readonly cases: string;
  /** The rows of the scope in the table: none, and nothing can be decided yet. */
  readonly rows: number;
  /** Where a case comes from, for the evidence's sentence. */
  readonly test: string;
  readonly candidates: readonly CandidateEvidence[];
}

/** The latest days an inference reads: enough to tell fields apart, bounded at any scale. */
export const DAYS_CHECKED = 14;
