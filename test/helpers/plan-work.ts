/** A plan node of `explain (analyze, format json)`, as far as the rows it looked at go. */
export interface PlanNode {
  readonly "Actual Rows": number;
  readonly "Actual Loops": number;
  readonly "Rows Removed by Filter"?: number;
  readonly "Rows Removed by Join Filter"?: number;
  readonly Plans?: readonly PlanNode[];
}

/** The rows every node of a plan produced or looked at and threw away, over all its loops. */
export function rowsExamined(node: PlanNode): number {
  const own =
    (node["Actual Rows"] +
      (node["Rows Removed by Filter"] ?? 0) +
      (node["Rows Removed by Join Filter"] ?? 0)) *
    node["Actual Loops"];
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsExamined(child), 0);
}
