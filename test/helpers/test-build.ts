// Vitest's global setup: the project's TypeScript (src, migrations, sandbox, the helpers tests
// run as processes) transpiled once to JavaScript, which every process a test starts runs with
// node alone. Through tsx each start compiled or loaded every module again: about 2.4 s and 3
// CPU-seconds an `etl` process, against 1 s and 1 CPU-second from JavaScript, on a suite that
// starts some three hundred. The type check stays `tsc --noEmit`'s; the image's build is tested
// by test/deploy.
import { randomBytes } from "node:crypto";
import { readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildSync } from "esbuild";
import { buildCliBundle } from "../../build/cli-bundle.js";
import { PROJECT_ROOT, TEST_BUILD_ENV } from "./cli.js";

/** What the processes tests start may import: none of it imports a test file. */
const SOURCES = ["src", "migrations", "sandbox", "test/helpers"];

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

export default function setup(): () => void {
  // Below node_modules, so the packages resolve from the build as from the source; a folder of
  // each run's own, so runs side by side never share one.
  const outdir = resolve(
    PROJECT_ROOT,
    "node_modules/.cache/music-etl-test-build",
    randomBytes(4).toString("hex"),
  );
  buildSync({
    entryPoints: SOURCES.flatMap((dir) => typeScriptFiles(resolve(PROJECT_ROOT, dir))),
    outdir,
    outbase: PROJECT_ROOT,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "warning",
  });
  // The CLI as the image runs it: every `etl` process a test starts loads the bundle.
  buildCliBundle(outdir);
  process.env[TEST_BUILD_ENV] = outdir;
  return () => {
    rmSync(outdir, { recursive: true, force: true });
  };
}
