/** A column a doc says a table or view has, and the line of the doc that says so. */
export interface ColumnClaim {
  readonly relation: string;
  readonly column: string;
  readonly line: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
const RELATION = /^([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)$/;
// The first cell of a table of tables or views names its relation under one of these headings.
const RELATION_HEADINGS = new Set(["table", "view", "object"]);
// A cell under such a heading names columns that no longer exist, on purpose.
const RETIRED_HEADING = /retired/i;
// A relation followed by a column of its own in parentheses: "`etl.attempts` (`run`)".
const RELATION_THEN_COLUMN = /`([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*)` \(`([a-z_][a-z0-9_]*)`\)/g;

const codeSpans = (text: string) => [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? "");

/**
 * The lines of `markdown`, those of fenced code blocks blanked: the example queries are run on
 * their own, and a fence's backticks would pair with a quoted span's.
 */
function proseLines(markdown: string): string[] {
  let fenced = false;
  return markdown.split("\n").map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line;
  });
}

const cellsOf = (row: string) =>
  row
    .trim()
    .replace(/^\||\|$/g, "")
    .split("|")
    .map((cell) => cell.trim());

/**
 * The columns a span names: a column, a list of them (a key: "`day, selection_type`"), or a
 * condition on one (`last_status = 'dismissed'`). A span of anything else (a command, a value
 * with other characters) names none.
 */
function spanColumns(span: string): string[] {
  const condition = /^([a-z_][a-z0-9_]*) = /.exec(span);
  if (condition?.[1]) return [condition[1]];
  const parts = span.split(/,\s*/);
  return parts.every((part) => IDENTIFIER.test(part)) ? parts : [];
}

/**
 * The relations a row's first cell names: a qualified one, and the names after it in the same
 * schema ("`artist_stats.cm_stats`, `audience_stats`"). None when the cell starts otherwise.
 */
function rowRelations(cell: string): string[] {
  const [first, ...rest] = codeSpans(cell);
  const qualified = RELATION.exec(first ?? "");
  if (!qualified) return [];
  const schema = qualified[1] ?? "";
  return [
    first ?? "",
    ...rest.filter((name) => IDENTIFIER.test(name)).map((n) => `${schema}.${n}`),
  ];
}

/**
 * Every column the tables of `markdown` name for a table or view: in a table whose first column
 * is headed table, view or object, each row's relation is in its first cell, and every
 * identifier quoted in its other cells (its key, its grain, what writes it) is taken for a
 * column of that relation, except a column under a retired heading, and a column quoted right
 * after another relation in parentheses, which is taken for that relation's. Qualified
 * `schema.table.column` names are left to schemaQualifiedColumns. Some quoted identifiers are
 * values or settings rather than columns; the caller knows which.
 */
export function tableColumnClaims(markdown: string): ColumnClaim[] {
  const lines = proseLines(markdown);
  const claims: ColumnClaim[] = [];
  let headings: string[] | null = null;
  lines.forEach((text, index) => {
    if (!text.startsWith("|")) {
      headings = null;
      return;
    }
    const cells = cellsOf(text);
    if (headings === null) {
      headings = cells.map((cell) => cell.toLowerCase());
      return;
    }
    if (cells.every((cell) => /^:?-+:?$/.test(cell))) return;
    if (!RELATION_HEADINGS.has(headings[0] ?? "")) return;
    const relations = rowRelations(cells[0] ?? "");
    const line = index + 1;
    cells.slice(1).forEach((cell, i) => {
      if (RETIRED_HEADING.test(headings?.[i + 1] ?? "")) return;
      const own = cell.replace(RELATION_THEN_COLUMN, (_all, relation: string, column: string) => {
        claims.push({ relation, column, line });
        return "";
      });
      for (const span of codeSpans(own)) {
        for (const column of spanColumns(span)) {
          for (const relation of relations) claims.push({ relation, column, line });
        }
      }
    });
  });
  return claims;
}

/**
 * Every `schema.table.column` quoted in the prose and tables of `markdown`, for the schemas
 * named; a file name (`etl.config.json`) is none. Read over the whole text, since a quoted span
 * may continue on the next line.
 */
export function schemaQualifiedColumns(
  markdown: string,
  schemas: readonly string[],
): ColumnClaim[] {
  const text = proseLines(markdown).join("\n");
  const qualified = new RegExp(
    `(?<![\\w.*])(${schemas.join("|")})\\.([a-z_][a-z0-9_]*)\\.([a-z_][a-z0-9_]*)(?![\\w.(*])`,
    "g",
  );
  return [...text.matchAll(/`([^`]+)`/g)].flatMap((span) =>
    [...(span[1] ?? "").replace(/[\w.-]+\.json\b/g, "").matchAll(qualified)].map((m) => ({
      relation: `${m[1]}.${m[2]}`,
      column: m[3] ?? "",
      line: text.slice(0, span.index).split("\n").length,
    })),
  );
}
