// The CLI as the image and the tests run it: src/cli/main.ts and what it imports in a few files,
// with the pure-ESM packages it loads on every start inlined. Loaded module by module, a sync spent
// some 0.3 s of its start resolving and reading about 600 files (Kysely's 262, zod's 95, the
// project's 193) before its first request; as a bundle it reads about 60. Every other package
// stays external, loaded from node_modules as it expects (pg, ioredis and pino find their own
// files at run time). Run with an output root: `tsx build/cli-bundle.ts dist`.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type BuildOptions, buildSync } from "esbuild";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Bundled: ESM only, no file of their own read at run time, and many files each. */
const BUNDLED = new Set(["kysely", "zod", "date-fns", "@date-fns/utc"]);

/**
 * The bundle's options, written over `<outRoot>/src/cli/main.js`. Its chunks stay beside it: a
 * module that finds files relative to itself (the migrations from src/warehouse, two folders
 * down) finds them from src/cli as well.
 */
export function cliBundleOptions(outRoot: string): BuildOptions {
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
    external,
    logLevel: "warning",
  };
}

/** Builds the bundle, removing an earlier build's chunks first (their names are their hashes). */
export function buildCliBundle(outRoot: string): void {
  const options = cliBundleOptions(outRoot);
  const outdir = options.outdir as string;
  for (const name of readdirSync(outdir)) {
    if (/^chunk-\w+\.js$/.test(name)) rmSync(resolve(outdir, name));
  }
  buildSync(options);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outRoot = process.argv[2];
  if (!outRoot) throw new Error("usage: tsx build/cli-bundle.ts <output root>");
  buildCliBundle(resolve(outRoot));
}
