import { afterAll, beforeAll } from "vitest";
import { type Sandbox, type SandboxOptions, startSandbox } from "../../sandbox/index.js";
import { etlEnv } from "./cli.js";
import { deleteKeysWithPrefix, uniquePrefix } from "./redis.js";
import { makeTempDir, type TempDir } from "./temp-dir.js";
import { createTestWarehouse, type TestWarehouse } from "./warehouse.js";

/** No family on a schedule: a worker then runs only what a test enqueues. */
export const NO_SCHEDULES = { catalogue: null, trends: null, artist_stats: null, royalties: null };

/**
 * What a test file that runs `etl` as processes sets up: a sandbox, its own warehouse and Redis
 * prefix, and a folder for its config files. All of it is removed after the file's tests, after
 * the file's own `afterAll` (hooks run last-registered first), so processes it ends go first.
 */
export interface ProcessSetting {
  readonly prefix: string;
  readonly dir: TempDir;
  readonly sandbox: Sandbox;
  readonly warehouse: TestWarehouse;
  /** Writes `config` (with the setting's Redis prefix) as `name`; the env of `etl` with it. */
  configure(
    config: object,
    options?: { readonly name?: string; readonly env?: Record<string, string> },
  ): Record<string, string>;
}

export function processSetting(name: string, sandboxOptions: SandboxOptions): ProcessSetting {
  const prefix = uniquePrefix(name);
  const dir = makeTempDir(name);
  let sandbox: Sandbox | undefined;
  let warehouse: TestWarehouse | undefined;
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error(`${name}: used before its beforeAll`);
    return value;
  };
  beforeAll(async () => {
    sandbox = await startSandbox(sandboxOptions);
    warehouse = await createTestWarehouse(name.replaceAll("-", "_"));
  });
  afterAll(async () => {
    await sandbox?.close();
    await warehouse?.drop();
    await deleteKeysWithPrefix(prefix);
    dir.remove();
  });
  return {
    prefix,
    dir,
    get sandbox() {
      return started(sandbox);
    },
    get warehouse() {
      return started(warehouse);
    },
    configure(config, options = {}) {
      const path = dir.write(options.name ?? "etl.config.json", {
        ...config,
        redis_prefix: prefix,
      });
      return etlEnv(started(sandbox), started(warehouse).url, path, options.env);
    },
  };
}
