// The CLI as the image and the tests run it: src/cli/main.ts and what it imports, written as
// main.js and chunk files beside it, with the pure-ESM packages every command loads inlined, so
// a start reads a few dozen files instead of hundreds of small modules (docs/benchmarks.md, "Full
// pipe"). Every other package stays external, loaded from node_modules as it expects (pg, ioredis
// and pino find their own files at run time). Run with an output root: `tsx build/cli-bundle.ts
// dist`.
import { readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type BuildOptions, buildSync } from "esbuild";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Inlined: ESM only, no file of their own read at run time, and many files each. They stay
 * dependencies: the built migrations import Kysely from node_modules when they run.
 */
const BUNDLED = new Set(["kysely", "zod", "date-fns", "@date-fns/utc"]);

/** The names esbuild gives the chunks (chunkNames): what a new build removes of the last one. */
const CHUNK = /^chunk-[A-Z0-9]{8}\.js$/;

/**
 * The bundle's options, written over `<outRoot>/src/cli/main.js`. Its chunks stay beside it: a
 * module that finds files relative to itself (the migrations from src/warehouse, two folders
 * down) finds them from src/cli as well. Class names are kept: an error's name is its class's
 * (src/errors.ts), and a bundle would otherwise rename one that clashes.
 */
function cliBundleOptions(outRoot: string): BuildOptions {
  const manifest = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  const external = Object.keys(manifest.dependencies)
    .filter((name) => !BUNDLED.has(name))
    .flatMap((name) => [name, `${name}/*`]);
  return {
    entryPoints: [resolve(ROOT, "src/cli/main.ts")],
    outdir: resolve(outRoot, "src/cli"),
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    chunkNames: "chunk-[hash]",
    keepNames: true,
    external,
    logLevel: "warning",
  };
}

/** Whether `name` is a chunk of the bundle (main.js is its entry). */
export const isBundleChunk = (name: string): boolean => CHUNK.test(name);

/** Builds the bundle, removing an earlier build's chunks first (their names are their hashes). */
export function buildCliBundle(outRoot: string): void {
  const options = cliBundleOptions(outRoot);
  const outdir = options.outdir as string;
  for (const name of readdirSync(outdir)) {
    if (isBundleChunk(name)) rmSync(resolve(outdir, name));
  }
  buildSync(options);
}

// Run as a script (npm run build), through whatever links lead to it.
if (
  process.argv[1] &&
  realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))
) {
  const outRoot = process.argv[2];
  if (!outRoot) throw new Error("usage: tsx build/cli-bundle.ts <output root>");
  buildCliBundle(resolve(outRoot));
}
