// The deployment files (docker-compose.yml, Dockerfile) checked by reading them: no Docker engine
// is needed. The environment variables compose may set are found by scanning src/, so a variable
// that nothing reads fails here instead of being silently ignored by the container.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { envSchema } from "../../src/config/env-schema.js";

const root = resolve(fileURLToPath(import.meta.url), "../../..");
const read = (path: string) => readFileSync(join(root, path), "utf8");

// ---------------------------------------------------------------------------------------------
// docker-compose.yml

interface ComposeService {
  readonly image?: string;
  readonly build?: unknown;
  readonly command?: string | readonly string[];
  readonly entrypoint?: string | readonly string[];
  readonly environment?: Readonly<Record<string, unknown>> | readonly string[];
  readonly healthcheck?: { readonly test?: string | readonly string[]; readonly disable?: boolean };
  readonly depends_on?:
    readonly string[] | Readonly<Record<string, { readonly condition?: string }>>;
  readonly profiles?: readonly string[];
  readonly ports?: readonly (string | number)[];
  readonly volumes?: readonly (string | { readonly source?: string; readonly target?: string })[];
}

interface ComposeFile {
  readonly services?: Readonly<Record<string, ComposeService>>;
}

/** Names a service sets in `environment`, in either the map or the `NAME=value` list form. */
function environmentNames(service: ComposeService): string[] {
  const environment = service.environment ?? {};
  if (Array.isArray(environment)) {
    return (environment as readonly string[]).map((entry) => entry.split("=")[0] ?? entry);
  }
  return Object.keys(environment);
}

/** Names a service sets that are not in `readNames`. */
function unreadVariables(service: ComposeService, readNames: ReadonlySet<string>): string[] {
  return environmentNames(service).filter((name) => !readNames.has(name));
}

const asText = (value: string | readonly string[] | undefined) =>
  typeof value === "string" ? value : (value ?? []).join(" ");

/** A service's mounts, short (`source:target[:mode]`) or long form, as source → target. */
function mounts(service: ComposeService): { source: string; target: string }[] {
  return (service.volumes ?? []).map((volume) => {
    if (typeof volume === "string") {
      const [source = "", target = ""] = volume.split(":");
      return { source, target };
    }
    return { source: volume.source ?? "", target: volume.target ?? "" };
  });
}

// ---------------------------------------------------------------------------------------------
// The environment variables the application reads, found in its source.

function typeScriptFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((path) => path.endsWith(".ts"))
    .map((path) => join(dir, path));
}

function matches(text: string, pattern: RegExp): string[] {
  return [...text.matchAll(pattern)].map((match) => match[1] ?? match[0]);
}

/** process.env.NAME / process.env["NAME"] anywhere in src, the env schema's keys, SANDBOX_*. */
function variablesReadBySource(): Set<string> {
  const names = new Set<string>();
  for (const file of typeScriptFiles("src")) {
    const text = read(file);
    for (const name of matches(text, /process\.env\.([A-Z_][A-Z0-9_]*)/g)) names.add(name);
    for (const name of matches(text, /process\.env\[\s*["'`]([A-Z_][A-Z0-9_]*)["'`]\s*\]/g)) {
      names.add(name);
    }
  }
  for (const name of Object.keys(envSchema.shape)) names.add(name);
  for (const name of matches(read("sandbox/main.ts"), /\bSANDBOX_[A-Z0-9_]+\b/g)) {
    names.add(name);
  }
  return names;
}

// ---------------------------------------------------------------------------------------------
// Dockerfile

interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

/** Instructions in order: comments and parser directives dropped, `\` continuations joined. */
function parseDockerfile(text: string): Instruction[] {
  const lines = text
    .split(/\r?\n/)
    .filter((line) => !/^\s*#/.test(line))
    .join("\n")
    .replace(/\\[ \t]*\n/g, " ")
    .split("\n");
  return lines
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .map((line) => {
      const [keyword = "", ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(" ") };
    });
}

/** The problems of a Dockerfile against what this project's image needs; empty when fine. */
function dockerfileProblems(text: string): string[] {
  const instructions = parseDockerfile(text);
  const problems: string[] = [];
  const froms = instructions.filter((i) => i.keyword === "FROM");
  if (froms.length < 2) problems.push(`multi-stage: expected at least 2 FROM, got ${froms.length}`);

  // Stage aliases, and the external image each FROM starts from.
  const aliases = new Map<string, string>();
  let finalImage = "";
  for (const from of froms) {
    const words = from.args.split(/\s+/).filter((word) => !word.startsWith("--"));
    const ref = words[0] ?? "";
    const image = aliases.get(ref.toLowerCase()) ?? ref;
    if (words[1]?.toUpperCase() === "AS" && words[2]) aliases.set(words[2].toLowerCase(), image);
    finalImage = image;
    const node = /^(?:docker\.io\/)?(?:library\/)?node:(\d+)/.exec(image);
    if (node && Number(node[1]) < 20) problems.push(`${image}: Node major below 20`);
  }
  const finalNode = /^(?:docker\.io\/)?(?:library\/)?node:(\d+)/.exec(finalImage);
  if (!finalNode || Number(finalNode[1]) < 20) {
    problems.push(`final stage's base ${JSON.stringify(finalImage)} is not node:20 or later`);
  }

  const finalStage = instructions.slice(
    instructions.findLastIndex((i) => i.keyword === "FROM") + 1,
  );
  const user = finalStage.filter((i) => i.keyword === "USER").at(-1)?.args;
  if (user === undefined) problems.push("final stage: no USER (runs as root)");
  else if (/^(root|0)(:|$)/.test(user)) problems.push(`final stage: USER ${user} is root`);

  const healthcheck = finalStage.filter((i) => i.keyword === "HEALTHCHECK").at(-1)?.args ?? "";
  if (!healthcheck.includes("/livez") || /^NONE\b/i.test(healthcheck)) {
    problems.push("final stage: no HEALTHCHECK hitting /livez");
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------

describe("docker-compose.yml", () => {
  const compose = parse(read("docker-compose.yml")) as ComposeFile;
  const services = compose.services ?? {};
  const service = (name: string): ComposeService => {
    const found = services[name];
    if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
    return found;
  };

  it("has the postgres, redis, worker, sandbox, prometheus and grafana services", () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining(["postgres", "redis", "worker", "sandbox", "prometheus", "grafana"]),
    );
  });

  it("runs PostgreSQL 16 or later", () => {
    const major = /^(?:docker\.io\/)?(?:library\/)?postgres:(\d+)/.exec(
      service("postgres").image ?? "",
    );
    expect(major, `postgres image ${service("postgres").image}`).not.toBeNull();
    expect(Number(major?.[1])).toBeGreaterThanOrEqual(16);
  });

  it("keeps every Redis key (noeviction) and persists queues (appendonly yes)", () => {
    const command = asText(service("redis").command);
    expect(command).toMatch(/--maxmemory-policy\s+noeviction\b/);
    expect(command).toMatch(/--appendonly\s+yes\b/);
  });

  it("gives every service a healthcheck", () => {
    for (const [name, { healthcheck }] of Object.entries(services)) {
      expect(healthcheck?.disable, `${name} healthcheck disabled`).not.toBe(true);
      expect(asText(healthcheck?.test), `${name} healthcheck`).not.toBe("");
    }
    expect(asText(service("worker").healthcheck?.test)).toContain("http://127.0.0.1:9464/livez");
    expect(asText(service("sandbox").healthcheck?.test)).toContain(
      "http://127.0.0.1:8787/__sandbox/stats",
    );
  });

  it("publishes every port on the loopback unless PUBLISH_HOST says otherwise", () => {
    const published = Object.values(services).flatMap((s) => s.ports ?? []);
    expect(published.length).toBeGreaterThan(0);
    for (const port of published)
      expect(String(port)).toMatch(/^\$\{PUBLISH_HOST:-127\.0\.0\.1\}:/);
    expect(service("worker").environment).toMatchObject({ WORKER_HOST: "0.0.0.0" });
  });

  it("starts the worker once postgres and redis are healthy", () => {
    const dependsOn = service("worker").depends_on;
    expect(Array.isArray(dependsOn), "depends_on in the short form has no condition").toBe(false);
    const conditions = dependsOn as Readonly<Record<string, { readonly condition?: string }>>;
    expect(conditions.postgres?.condition).toBe("service_healthy");
    expect(conditions.redis?.condition).toBe("service_healthy");
  });

  it("puts the sandbox in the demo profile only, built from the Dockerfile's sandbox stage", () => {
    expect(service("sandbox").profiles).toEqual(["demo"]);
    expect(service("sandbox").build).toEqual({ context: ".", target: "sandbox" });
    expect(read("Dockerfile")).toMatch(/^FROM \S+ AS sandbox$/m);
    expect(service("worker").profiles).toBeUndefined();
  });

  describe("monitoring", () => {
    /** The repository file mounted at `target` in `name`, or undefined. */
    const mountedFile = (name: string, target: string): string | undefined => {
      const mount = mounts(service(name)).find((m) => target.startsWith(m.target));
      return mount && join(mount.source, target.slice(mount.target.length));
    };

    it("puts prometheus and grafana in the monitoring profile", () => {
      expect(service("prometheus").profiles).toEqual(["monitoring"]);
      expect(service("grafana").profiles).toEqual(["monitoring"]);
    });

    it.each(["prometheus", "grafana"])("%s mounts only repository paths that exist", (name) => {
      const binds = mounts(service(name)).filter((m) => m.source.startsWith("."));
      expect(binds.length).toBeGreaterThan(0);
      for (const { source } of binds) expect(existsSync(join(root, source)), source).toBe(true);
    });

    it("has Prometheus scrape the worker's port and load the alert rules", () => {
      const configPath = mountedFile("prometheus", "/etc/prometheus/prometheus.yml");
      expect(configPath).toBe("ops/prometheus/prometheus.yml");
      const config = parse(read(configPath ?? "")) as {
        rule_files?: string[];
        scrape_configs?: {
          job_name: string;
          static_configs?: unknown;
          dns_sd_configs?: { names: string[]; type: string; port: number }[];
        }[];
      };
      const job = config.scrape_configs?.find((c) => c.job_name === "music-etl");
      const port = (service("worker").environment as Record<string, unknown>).WORKER_PORT;
      // Each worker of `--scale worker=N` by compose's DNS, not one of them behind a static name.
      expect(job?.static_configs).toBeUndefined();
      expect(job?.dns_sd_configs).toEqual([
        expect.objectContaining({ names: ["worker"], type: "A", port: Number(port) }),
      ]);
      // Rule files are relative to the config's folder, in the container as in the repository.
      const rules = (config.rule_files ?? []).map((file) =>
        mountedFile("prometheus", `/etc/prometheus/${file}`),
      );
      expect(rules).toEqual(["ops/prometheus/alerts.yml"]);
    });

    it("has Grafana provisioned with the Prometheus service and the dashboard", () => {
      const datasources = parse(
        read(mountedFile("grafana", "/etc/grafana/provisioning/datasources/prometheus.yml") ?? ""),
      ) as { datasources: { type: string; url: string }[] };
      expect(datasources.datasources).toEqual([
        expect.objectContaining({ type: "prometheus", url: "http://prometheus:9090" }),
      ]);
      const dashboards = parse(
        read(mountedFile("grafana", "/etc/grafana/provisioning/dashboards/music-etl.yml") ?? ""),
      ) as { providers: { options: { path: string } }[] };
      const folder = mountedFile("grafana", dashboards.providers[0]?.options.path ?? "");
      expect(existsSync(join(root, folder ?? "", "music-etl.json"))).toBe(true);
    });
  });

  describe("environment variables", () => {
    const readNames = variablesReadBySource();

    it("are found by scanning the source", () => {
      // The scan itself must find something, or every check below passes vacuously.
      expect(Object.keys(envSchema.shape).length).toBeGreaterThan(0);
      expect([...readNames].some((name) => name.startsWith("SANDBOX_"))).toBe(true);
    });

    it.each(["worker", "sandbox"])("%s sets only variables the application reads", (name) => {
      expect(environmentNames(service(name)).length).toBeGreaterThan(0);
      expect(unreadVariables(service(name), readNames)).toEqual([]);
    });

    it("flags a variable nothing reads, in map and list form", () => {
      const names = new Set(["DATABASE_URL"]);
      expect(
        unreadVariables({ environment: { DATABASE_URL: "x", NOT_READ_BY_ANYTHING: "1" } }, names),
      ).toEqual(["NOT_READ_BY_ANYTHING"]);
      expect(
        unreadVariables({ environment: ["DATABASE_URL=x", "NOT_READ_BY_ANYTHING"] }, names),
      ).toEqual(["NOT_READ_BY_ANYTHING"]);
    });
  });
});

describe("Dockerfile", () => {
  const text = read("Dockerfile");

  it("is multi-stage, on Node 20 or later, runs as non-root, and checks /livez", () => {
    expect(dockerfileProblems(text)).toEqual([]);
  });

  it("copies only paths that exist in the repository", () => {
    const copies = parseDockerfile(text).filter(
      (i) => i.keyword === "COPY" && !/--from=/.test(i.args),
    );
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const words = copy.args.split(/\s+/).filter((word) => !word.startsWith("--"));
      for (const source of words.slice(0, -1)) {
        expect(existsSync(join(root, source)), `COPY ${source}`).toBe(true);
      }
    }
  });

  it("exposes the worker port and runs the built CLI with node itself, with a heap budget", () => {
    const instructions = parseDockerfile(text);
    expect(instructions.filter((i) => i.keyword === "EXPOSE").map((i) => i.args)).toContain("9464");
    // The worker listens on the loopback unless told: in a container that is no one's.
    expect(instructions.filter((i) => i.keyword === "ENV").map((i) => i.args)).toContain(
      "WORKER_HOST=0.0.0.0",
    );
    expect(instructions.filter((i) => i.keyword === "ENTRYPOINT").at(-1)?.args).toBe(
      '["node", "dist/src/cli/main.js"]',
    );
    expect(
      instructions.find((i) => i.keyword === "RUN" && /npm run build/.test(i.args)),
    ).toBeDefined();
    expect(
      instructions.find((i) => i.keyword === "ENV" && i.args.startsWith("NODE_OPTIONS="))?.args,
    ).toMatch(/^NODE_OPTIONS=--max-old-space-size=\d+$/);
  });

  it("reports a single-stage, root, Node 18 image without a healthcheck", () => {
    expect(dockerfileProblems('FROM node:18-slim\nUSER root\nCMD ["node"]\n')).toEqual([
      "multi-stage: expected at least 2 FROM, got 1",
      "node:18-slim: Node major below 20",
      'final stage\'s base "node:18-slim" is not node:20 or later',
      "final stage: USER root is root",
      "final stage: no HEALTHCHECK hitting /livez",
    ]);
  });

  it("follows stage aliases to the final stage's base image", () => {
    const twoStages = [
      "FROM node:22-slim AS base",
      "FROM base",
      "USER node",
      "HEALTHCHECK CMD node -e \"fetch('http://127.0.0.1:9464/livez')\"",
    ].join("\n");
    expect(dockerfileProblems(twoStages)).toEqual([]);
    expect(dockerfileProblems(twoStages.replace("USER node", ""))).toEqual([
      "final stage: no USER (runs as root)",
    ]);
  });
});
