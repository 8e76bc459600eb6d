// `npm run build`, and the built CLI run the way the Docker image runs it: node itself, with the
// image's NODE_OPTIONS, on JavaScript only (migrations included).
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCliBundle, isBundleChunk } from "../../build/cli-bundle.js";
import { PROJECT_ROOT } from "../helpers/cli.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { dropDatabase, PG_HOST_URL, withDatabaseClient } from "../helpers/warehouse.js";

const run = promisify(execFile);
// Inside node_modules, so the built files resolve the project's packages as dist/ does.
const out = resolve(
  PROJECT_ROOT,
  "node_modules/.cache",
  `music-etl-build-${randomBytes(4).toString("hex")}`,
);
const database = `music_etl_test_build_${randomBytes(4).toString("hex")}`;
const dir = makeTempDir("build");
const migrations = readdirSync(join(PROJECT_ROOT, "migrations")).filter((f) => f.endsWith(".ts"));
const nodeOptions =
  /^ENV NODE_OPTIONS=(.+)$/m.exec(readFileSync(join(PROJECT_ROOT, "Dockerfile"), "utf8"))?.[1] ??
  "";

beforeAll(async () => {
  dir.write("etl.config.json", { start_date: "2026-01-01" });
  await run(
    resolve(PROJECT_ROOT, "node_modules/.bin/tsc"),
    ["-p", "tsconfig.build.json", "--outDir", out],
    { cwd: PROJECT_ROOT },
  );
  buildCliBundle(out);
});

afterAll(async () => {
  rmSync(out, { recursive: true, force: true });
  dir.remove();
  await dropDatabase(database);
});

/** A built script run by node alone, with only the given environment. */
function node(script: string, args: string[], env: Record<string, string> = {}) {
  return run(process.execPath, [join(out, script), ...args], {
    cwd: dir.path,
    env: { PATH: process.env.PATH ?? "", NODE_OPTIONS: nodeOptions, ...env },
  });
}

describe("the build", () => {
  it("emits JavaScript for every source file, every job and every migration, none of the sandbox", () => {
    for (const file of migrations) {
      expect(existsSync(join(out, "migrations", file.replace(/\.ts$/, ".js"))), file).toBe(true);
    }
    expect(existsSync(join(out, "src/cli/main.js"))).toBe(true);
    // Test equipment, not the product: neither the sandbox nor the demo reaches the image.
    expect(existsSync(join(out, "sandbox"))).toBe(false);
    expect(readdirSync(out).sort()).toEqual(["migrations", "src"]);
    expect(existsSync(join(out, "src/jobs/start-worker.js"))).toBe(true);
  });

  it("bundles the CLI with the packages every start loads, and the other packages left to node", () => {
    const cli = join(out, "src/cli");
    const bundle = readdirSync(cli)
      .filter((name) => name === "main.js" || isBundleChunk(name))
      .map((name) => readFileSync(join(cli, name), "utf8"))
      .join("\n");
    const imported = new Set(
      [...bundle.matchAll(/\bfrom\s*"([^".][^"]*)"/g)].map((m) => m[1]?.split("/")[0]),
    );
    for (const inlined of ["kysely", "zod", "date-fns"]) expect(imported.has(inlined)).toBe(false);
    for (const external of ["pg", "ioredis", "pino", "undici"]) {
      expect(imported.has(external), external).toBe(true);
    }
    // The commands from the bundle's own chunks, not from the per-file build beside it.
    expect(bundle).not.toMatch(/(?:from\s*|import\(\s*)"\.{1,2}\/(?!chunk-)/);
  });

  it("is what npm run build makes: the compile, then the bundle over its main.js", () => {
    const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as {
      scripts: { build: string };
    };
    expect(manifest.scripts.build).toBe(
      "tsc -p tsconfig.build.json && tsx build/cli-bundle.ts dist",
    );
  });

  it("runs `etl migrate` with the image's NODE_OPTIONS and applies every migration", async () => {
    expect(nodeOptions).not.toBe("");
    const { stdout } = await node("src/cli/main.js", ["migrate"], {
      DATABASE_URL: `${PG_HOST_URL}/${database}`,
      LOG_LEVEL: "silent",
    });
    expect(stdout).toContain(`${migrations.length} migrations applied`);
    const [applied] = await withDatabaseClient(
      async (c) =>
        (await c.query<{ n: number }>("select count(*)::int as n from etl.kysely_migration")).rows,
      database,
    );
    expect(applied?.n).toBe(migrations.length);
  });

  it("prints the release with --version, found from dist/ as from src/", async () => {
    const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    const { stdout } = await node("src/cli/main.js", ["--version"]);
    expect(stdout.trim()).toBe(manifest.version);
  });

  it("builds before `npm start`, which runs the worker's command", async () => {
    const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as {
      scripts: { prestart?: string; start: string };
    };
    // A fresh checkout has no dist/, and an edited one a stale one: start builds.
    expect(manifest.scripts.prestart).toBe("npm run build");
    // exec: npm's signal reaches the worker itself (see test/cli/npm-signal.test.ts).
    const [exec, command, script, ...args] = manifest.scripts.start.split(" ");
    expect(exec).toBe("exec");
    expect(command).toBe("node");
    const { stdout } = await node(relative("dist", script ?? ""), [...args, "--help"]);
    expect(stdout).toContain("Usage: etl worker");
  });

  it("runs the sandbox the way the Dockerfile's sandbox stage does, for the compose demo", async () => {
    const dockerfile = readFileSync(join(PROJECT_ROOT, "Dockerfile"), "utf8");
    const stage = dockerfile.slice(dockerfile.search(/^FROM \S+ AS sandbox$/m));
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(stage)?.[1];
    const [command, ...args] = JSON.parse(entrypoint ?? "[]") as string[];
    expect(command).toBe("node");
    const { stdout } = await run(process.execPath, [...args, "--help"], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(stdout).toContain("Usage: npm run sandbox");
  });
});
