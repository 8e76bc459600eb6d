import { etlConfigSchema } from "../src/config/etl-config-schema.js";
import { addDays, utcToday } from "../src/time/calendar.js";
import { makeTempDir } from "../test/helpers/temp-dir.js";
import {
  imageNodeOptions,
  PEAK_MEMORY_PRELOAD,
  reportedPeakRssBytes,
  runEtl,
  type SandboxProcess,
  startSandboxProcess,
} from "./processes.js";
import { atMost, round, type Figure, type SectionResult, type Target } from "./report.js";
import { createScratch, REDIS_URL, type Scratch } from "./scratch.js";

const MIB = 1024 * 1024;
/** The answer the others are measured above: what the command costs with (almost) no body. */
const SMALL_ANSWER_INCOMES = 100;
/** The issue's target: an answer needs less than 3 times its size in memory at its peak. */
const TARGET_RATIO = 3;

interface Sync {
  readonly succeeded: boolean;
  readonly crashed: boolean;
  readonly outcome: string;
  /** Peak RSS (bench/peak-memory.js); null when the process wrote none (it crashed). */
  readonly peakRssBytes: number | null;
}

/** How an `etl sync` ended, in a few words: its exit, and the failure it names, if any. */
function outcomeOf(code: number | null, signal: string | null, lines: readonly string[]): string {
  if (lines.some((line) => line.includes("heap out of memory"))) {
    return `crashed: V8 heap out of memory (${signal ?? `exit ${code}`})`;
  }
  if (signal !== null) return `killed by ${signal}`;
  if (code === 0) return "exit 0, succeeded";
  const failure = lines
    .map((line) => /"err":"((?:[^"\\]|\\.)*)"/.exec(line)?.[1])
    .find((message) => message !== undefined);
  return `exit ${code}${failure ? `: ${JSON.parse(`"${failure}"`) as string}` : ""}`;
}

/** The pipeline deployed for one answer: a sandbox serving it, a migrated database to copy. */
interface Rig {
  readonly sandbox: SandboxProcess;
  readonly template: Scratch;
}

/**
 * `etl sync --only incomes`, the built CLI as the image runs it with `nodeOptions`, on a new copy
 * of the migrated database, against the rig's sandbox; its peak RSS as bench/peak-memory.js
 * reports it.
 */
async function syncIncomes(
  rig: Rig,
  nodeOptions: string,
  etl: Record<string, unknown>,
): Promise<Sync> {
  const scratch = await createScratch("response", rig.template.database);
  const dir = makeTempDir("bench-response");
  try {
    const env = {
      NODE_OPTIONS: nodeOptions,
      MUSIC_API_URL: rig.sandbox.url,
      MUSIC_API_KEY: rig.sandbox.apiKey,
      DATABASE_URL: scratch.databaseUrl,
      REDIS_URL,
      ETL_CONFIG: dir.write("etl.config.json", {
        start_date: addDays(utcToday(), -30),
        requests_per_second: 100_000,
        redis_prefix: scratch.redisPrefix,
        ...etl,
      }),
    };
    const run = await runEtl(["sync", "--only", "incomes"], env, PEAK_MEMORY_PRELOAD);
    const outcome = outcomeOf(run.code, run.signal, run.lines);
    return {
      succeeded: run.code === 0,
      crashed: outcome.startsWith("crashed") || run.signal !== null,
      outcome,
      peakRssBytes: reportedPeakRssBytes(run.lines),
    };
  } finally {
    dir.remove();
    await scratch.drop();
  }
}

/** A sandbox process whose incomes list is one answer of `incomes` records, and its size. */
async function withRig<T>(
  incomes: number,
  use: (rig: Rig, bodyBytes: number) => Promise<T>,
): Promise<T> {
  const sandbox = await startSandboxProcess({ size: { incomes }, today: utcToday() });
  const template = await createScratch("response_template");
  try {
    const response = await fetch(`${sandbox.url}/api/v1/incomes`, {
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
    });
    await response.body?.cancel();
    const dir = makeTempDir("bench-response");
    const migrated = await runEtl(["migrate"], {
      DATABASE_URL: template.databaseUrl,
      ETL_CONFIG: dir.write("etl.config.json", { start_date: addDays(utcToday(), -30) }),
    }).finally(() => dir.remove());
    if (migrated.code !== 0) throw new Error(`etl migrate failed:\n${migrated.lines.join("\n")}`);
    return await use({ sandbox, template }, Number(response.headers.get("content-length")));
  } finally {
    await sandbox.stop();
    await template.drop();
  }
}

/**
 * The least --max-old-space-size (MB, to `stepMb`) under which the sync succeeds: above `fromMb`
 * (assumed too little), first tried at `fromMb + spanMb`, the span doubled while that is too
 * little, up to `maxMb` (null: even that is too little); then halved. A run either gets through
 * or V8 runs out of heap: counted, not timed.
 */
async function leastHeap(
  rig: Rig,
  etl: Record<string, unknown>,
  search: { fromMb: number; spanMb: number; maxMb: number; stepMb: number },
): Promise<{ heapMb: number; peakRssBytes: number } | null> {
  const { fromMb, spanMb, maxMb, stepMb } = search;
  const at = async (heapMb: number) => {
    const run = await syncIncomes(rig, `--max-old-space-size=${heapMb}`, etl);
    if (!run.succeeded && !run.crashed) throw new Error(`sync at ${heapMb} MB: ${run.outcome}`);
    return run;
  };
  let [low, high] = [fromMb, Math.ceil(fromMb + spanMb)];
  let best = await at(high);
  while (!best.succeeded) {
    if (high >= maxMb) return null;
    [low, high] = [high, Math.ceil(Math.min(maxMb, fromMb + 2 * (high - fromMb)))];
    best = await at(high);
  }
  while (high - low > stepMb) {
    const middle = Math.round((low + high) / 2);
    const run = await at(middle);
    if (run.succeeded) [high, best] = [middle, run];
    else low = middle;
  }
  return { heapMb: high, peakRssBytes: best.peakRssBytes ?? 0 };
}

const mib = (bytes: number) => round(bytes / MIB);

/**
 * 10. Memory per response: one list of incomes served as a single answer of 1, 5, 20 and 50 MiB,
 * and one just under the default max_response_bytes, each synced by the built CLI on a new
 * database. For each: the least heap (--max-old-space-size) it gets through with, and its peak
 * RSS there, both above the same command's with a 100-income answer and ÷ the body's size (with
 * max_response_bytes raised above the body); then how it ends with the image's NODE_OPTIONS and
 * the default configuration: a success or a clear failure, never a crash.
 */
export async function responseMemory(sizesMib: readonly number[]): Promise<SectionResult> {
  const limit = etlConfigSchema.parse({ start_date: "2026-01-01" }).max_response_bytes;
  const base = await withRig(SMALL_ANSWER_INCOMES, async (rig, bodyBytes) => ({
    bodyBytes,
    least: await leastHeap(rig, {}, { fromMb: 0, spanMb: 32, maxMb: 256, stepMb: 1 }),
  }));
  if (base.least === null) throw new Error("the small answer needs more than 256 MB of heap");
  const bytesPerIncome = base.bodyBytes / SMALL_ANSWER_INCOMES;
  const figures: Figure[] = [
    { name: "image NODE_OPTIONS", value: imageNodeOptions() },
    { name: "max_response_bytes (default)", value: `${limit} bytes (${mib(limit)} MiB)` },
    {
      name: "100-income answer: least heap / peak RSS there",
      value: `${base.least.heapMb} MB / ${mib(base.least.peakRssBytes)} MiB`,
    },
  ];
  const targets: Target[] = [];
  const sizes = [
    ...sizesMib.map((size) => ({ name: `${size} MiB`, bytes: size * MIB })),
    { name: "just under max_response_bytes", bytes: limit * 0.98 },
  ].sort((a, b) => a.bytes - b.bytes);
  for (const size of sizes) {
    const incomes = Math.round(size.bytes / bytesPerIncome);
    await withRig(incomes, async (rig, bodyBytes) => {
      const label = `${size.name} answer (${mib(bodyBytes)} MiB)`;
      // --max-old-space-size counts in MiB (V8's "MB").
      const bodyMb = bodyBytes / MIB;
      const baseMb = base.least?.heapMb ?? 0;
      // Steps of a 32nd of the body, 1 MB at least: from an answer of some 16 MiB up, finer than
      // 5 % of the ratio (about 1.5), what a change of it is judged by.
      const least = await leastHeap(
        rig,
        { max_response_bytes: 2 * bodyBytes },
        {
          fromMb: baseMb,
          spanMb: Math.max(8, 4 * bodyMb),
          maxMb: baseMb + 16 * bodyMb,
          stepMb: Math.max(1, Math.round(bodyMb / 32)),
        },
      );
      if (least === null) {
        figures.push({ name: `${label}: least heap`, value: "more than 16 × the body" });
      } else {
        const heap = (least.heapMb - (base.least?.heapMb ?? 0)) / bodyMb;
        const rss = (least.peakRssBytes - (base.least?.peakRssBytes ?? 0)) / bodyBytes;
        figures.push(
          {
            name: `${label}: least heap / peak RSS there`,
            value: `${least.heapMb} MB / ${mib(least.peakRssBytes)} MiB`,
          },
          {
            name: `${label}: heap / RSS above the 100-income answer ÷ body`,
            value: `${round(heap, 2)} / ${round(rss, 2)}`,
          },
        );
        if (size.bytes >= 5 * MIB) {
          targets.push(atMost(`${label}: least heap above the small ÷ body`, heap, TARGET_RATIO));
        }
      }
      const deployed = await syncIncomes(rig, imageNodeOptions(), {});
      const rss =
        deployed.peakRssBytes === null ? "" : `; peak RSS ${mib(deployed.peakRssBytes)} MiB`;
      figures.push({ name: `${label}, image settings`, value: `${deployed.outcome}${rss}` });
      targets.push(atMost(`${label}, image settings: crashed`, deployed.crashed ? 1 : 0, 0));
    });
  }
  return { section: "10 memory per response", figures, targets };
}
