// `npm run sandbox`: the sandbox upstream as a standalone process, for the demo and manual runs.
// Flags win over environment variables; the API key is never printed.
import { parseArgs } from "node:util";
import { currentUtcDate, formatDay, requireDay } from "./days.js";
import type { KnobsPatch } from "./interfaces.js";
import type { SandboxSize } from "./size.js";
import { startSandbox } from "./server.js";
import { SHAPE_VARIANTS, shapeVariantsPatch } from "./shape-variants.js";
import { sizeEndingBefore } from "./size.js";

const USAGE = `Usage: npm run sandbox -- [options]
  --port <n>          SANDBOX_PORT        default 8787
  --host <address>    SANDBOX_HOST        default 127.0.0.1 (0.0.0.0 in a container)
  --api-key <key>     SANDBOX_API_KEY     default sandbox-key
  --seed <n>          SANDBOX_SEED        default 1
  --rps <n>           SANDBOX_RPS         requests per second before 429s, default unlimited
  --fault-rate <0..1> SANDBOX_FAULT_RATE  default 0
  --latency-ms <n>    SANDBOX_LATENCY_MS  default 0
  --today <day>       SANDBOX_TODAY       the sandbox's "now" (YYYY-MM-DD), default the real UTC day
  --size <json>       SANDBOX_SIZE        dataset size, e.g. {"days":365,"products":5000}
                                          (keys as in docs/sandbox.md; the rest keep defaults;
                                          sales end the day before today unless startDate is set)
  --shapes <a,b>      SANDBOX_SHAPES      alternative payload shapes, named variants comma-separated:
                                          ${Object.keys(SHAPE_VARIANTS).join(", ")}
Steer a running sandbox with POST /__sandbox/knobs; read GET /__sandbox/stats.`;

const { values } = parseArgs({
  options: {
    port: { type: "string" },
    host: { type: "string" },
    "api-key": { type: "string" },
    seed: { type: "string" },
    rps: { type: "string" },
    "fault-rate": { type: "string" },
    "latency-ms": { type: "string" },
    today: { type: "string" },
    size: { type: "string" },
    shapes: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});

if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

/** A numeric setting from its flag or environment variable; undefined when neither is set. */
function numberSetting(flag: string | undefined, envName: string): number | undefined {
  const text = flag ?? process.env[envName];
  if (text === undefined || text === "") return undefined;
  const value = Number(text);
  if (!Number.isFinite(value)) {
    console.error(`${envName} / flag must be a number, got ${JSON.stringify(text)}\n\n${USAGE}`);
    process.exit(2);
  }
  return value;
}

/** The dataset size from its flag or variable (JSON), undefined when neither is set. */
function sizeSetting(): Partial<SandboxSize> | undefined {
  const text = values.size ?? process.env.SANDBOX_SIZE;
  if (text === undefined || text === "") return undefined;
  try {
    return JSON.parse(text) as Partial<SandboxSize>;
  } catch {
    console.error(
      `SANDBOX_SIZE / --size must be a JSON object, got ${JSON.stringify(text)}\n\n${USAGE}`,
    );
    process.exit(2);
  }
}

/** The knobs of the named shape variants (comma-separated), {} when none is set. */
function shapesSetting(): KnobsPatch {
  const text = values.shapes ?? process.env.SANDBOX_SHAPES;
  if (text === undefined || text.trim() === "") return {};
  const names = text
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  try {
    return shapeVariantsPatch(names);
  } catch (error) {
    console.error(`SANDBOX_SHAPES / --shapes: ${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}

const knobs: KnobsPatch = shapesSetting();
const rps = numberSetting(values.rps, "SANDBOX_RPS");
const faultRate = numberSetting(values["fault-rate"], "SANDBOX_FAULT_RATE");
const latencyMs = numberSetting(values["latency-ms"], "SANDBOX_LATENCY_MS");
if (rps !== undefined) knobs.requestsPerSecond = rps;
if (faultRate !== undefined) knobs.faultRate = faultRate;
if (latencyMs !== undefined) knobs.latencyMs = latencyMs;

/** "first..last" day with sales, or "none". */
function salesWindow({ startDate, days }: SandboxSize): string {
  if (days === 0) return "none";
  return `${startDate}..${formatDay(requireDay(startDate, "size.startDate") + days - 1)}`;
}

const today = values.today ?? (process.env.SANDBOX_TODAY || currentUtcDate());
try {
  const sandbox = await startSandbox({
    port: numberSetting(values.port, "SANDBOX_PORT") ?? 8787,
    host: values.host ?? (process.env.SANDBOX_HOST || "127.0.0.1"),
    apiKey: values["api-key"] ?? (process.env.SANDBOX_API_KEY || "sandbox-key"),
    seed: numberSetting(values.seed, "SANDBOX_SEED") ?? 1,
    knobs,
    size: sizeEndingBefore(today, sizeSetting()),
    today,
  });
  // The URL ends at the first space: scripts read it from this line.
  console.log(
    `Sandbox upstream listening on ${sandbox.url} (sales ${salesWindow(sandbox.data.size)}, today ${today})`,
  );
  const stop = () => {
    void sandbox.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
} catch (error) {
  console.error(`Sandbox failed to start: ${(error as Error).message}`);
  process.exit(1);
}
