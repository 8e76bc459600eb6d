// `npm run bench`: measures the pipeline against the physical limits and writes bench/results.json.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { biQueries } from "./bi-queries.js";
import { parseBiScale } from "./bi-scale.js";
import { endToEnd } from "./end-to-end.js";
import { fetchPath } from "./fetch-path.js";
import { jsonParse } from "./json-parse.js";
import { loadPath } from "./load-path.js";
import { memory } from "./memory.js";
import { pipeFull } from "./pipe-full.js";
import { rateLearning } from "./rate-learning.js";
import { requestPlan } from "./request-plan.js";
import { responseMemory } from "./response-memory.js";
import { PROJECT_ROOT } from "../test/helpers/cli.js";
import { machine, printTable, type SectionResult } from "./report.js";
import { withDatabaseClient } from "../test/helpers/warehouse.js";

const SECTIONS = [
  "load",
  "fetch",
  "end-to-end",
  "memory",
  "pipe",
  "plan",
  "response",
  "rate",
  "json",
  "bi",
] as const;
type Section = (typeof SECTIONS)[number];

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    rows: { type: "string", default: "1000000" },
    "memory-days": { type: "string", default: "7" },
    "response-mib": { type: "string", default: "1,5,20,50" },
    "bi-scale": { type: "string", default: "large,10x3y" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(`Usage: npm run bench -- [--only ${SECTIONS.join(",")}] [--rows N] [--memory-days N]
                       [--response-mib 1,5,20,50] [--bi-scale large,10x3y]
  load        1M (--rows) synthetic trend items: the loader against COPY, fresh and 10% changed
  fetch       a backfill at R = 50 req/s against a sandbox with 50 ms latency
  end-to-end  the large account (a year, 5,000 products, 200 tracked artists) backfilled with
              the rate limit off, then an incremental sync with nothing changed upstream
  memory      the worker's peak RSS for the large account and a 10× one, over the last 7
              (--memory-days) days; then Redis's peak over the first 30,000 partitions of
              a year's backfill of each
  pipe        14 days of the default account against an unlimited upstream answering in 40 ms,
              max_concurrency 8: sync and backfill wall against requests × latency ÷ 8
  plan        the large account's last 3 days synced, then \`etl plan\` of its year per stream
  response    one answer of 1, 5, 20 and 50 MiB (--response-mib) and one just under
              max_response_bytes (a list of incomes) synced by the CLI: the least heap it needs
              and its peak RSS, ÷ the body's size, and how it ends under the image's NODE_OPTIONS
  rate        "auto" finding a limit stated on every answer, on 429s alone, or never, the limit
              cut under three stacks, a max, and a fixed budget shared by two processes: the
              rate held ÷ the limit, 429s, and the seconds until the limit is found
  json        a 6 MiB trend list parsed by src/json, by lossless-json and by JSON.parse
  bi          the analysts' queries on the analytics views (plans in bench/bi-plans.txt) over
              datasets written straight into the tables (--bi-scale): large, the large
              account's year; 10x3y, ten times it over three years; <times>x<years>y or
              <times>x<months>m for others (10x1m: a month of the 10× account)`);
  process.exit(0);
}
const only = (values.only?.split(",") ?? [...SECTIONS]) as Section[];
for (const name of only) {
  if (!SECTIONS.includes(name)) {
    console.error(`unknown section ${name}; sections: ${SECTIONS.join(", ")}`);
    process.exit(2);
  }
}
if (only.includes("bi")) {
  try {
    values["bi-scale"].split(",").forEach(parseBiScale);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
}

async function postgresVersion(): Promise<string> {
  return withDatabaseClient(async (c) =>
    String(
      (await c.query<{ v: string }>("select current_setting('server_version') as v")).rows[0]?.v,
    ),
  );
}

const runners: Record<Section, () => Promise<SectionResult | SectionResult[]>> = {
  load: () => loadPath(Number(values.rows)),
  fetch: () => fetchPath(),
  "end-to-end": () => endToEnd(),
  memory: () => memory(Number(values["memory-days"])),
  pipe: () => pipeFull(),
  plan: () => requestPlan(),
  response: () => responseMemory(values["response-mib"].split(",").map(Number)),
  rate: () => rateLearning(),
  json: () => Promise.resolve(jsonParse()),
  bi: () => biQueries(values["bi-scale"].split(",")),
};

const results: SectionResult[] = [];
const startedAt = new Date().toISOString();
for (const name of only) {
  console.error(`bench: ${name}…`);
  results.push(...[await runners[name]()].flat());
}
console.log(printTable(results));
const file = resolve(PROJECT_ROOT, "bench/results.json");
const run = { startedAt, machine: machine(await postgresVersion()) };
writeFileSync(file, `${JSON.stringify(merged(run, results), null, 2)}\n`);
console.log(`\nwritten to bench/results.json`);

/**
 * The whole run, or with --only the sections run in place of theirs in the file, each carrying
 * when and where it ran: a partial run never drops the other sections' figures.
 */
function merged(ran: typeof run, sections: SectionResult[]): unknown {
  if (values.only === undefined || !existsSync(file)) return { ...ran, results: sections };
  const earlier = JSON.parse(readFileSync(file, "utf8")) as { results: SectionResult[] };
  const fresh = new Map(sections.map((result) => [result.section, { ...result, ...ran }]));
  const kept = earlier.results.map((result) => fresh.get(result.section) ?? result);
  const added = sections.filter(
    (result) => !earlier.results.some((e) => e.section === result.section),
  );
  return { ...earlier, results: [...kept, ...added.map((result) => fresh.get(result.section))] };
}
