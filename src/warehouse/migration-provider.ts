import { readdir } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Migration, MigrationProvider } from "kysely";

/**
 * The migrations in a folder, by file name (their order). Unlike Kysely's file provider, the
 * import happens in project code, so TypeScript migrations load under tsx and vitest, and their
 * built JavaScript under node.
 */
export class FolderMigrationProvider implements MigrationProvider {
  readonly #folder: string;

  constructor(folder: string) {
    this.#folder = folder;
  }

  /** The migrations' names, in order, without loading them. */
  async names(): Promise<string[]> {
    return (await this.#files()).map(migrationName);
  }

  async getMigrations(): Promise<Record<string, Migration>> {
    const migrations: Record<string, Migration> = {};
    for (const file of await this.#files()) {
      migrations[migrationName(file)] = (await import(
        pathToFileURL(path.join(this.#folder, file)).href
      )) as Migration;
    }
    return migrations;
  }

  async #files(): Promise<string[]> {
    return (await readdir(this.#folder))
      .filter((name) => /\.(ts|js|mjs)$/.test(name) && !name.endsWith(".d.ts"))
      .sort();
  }
}

function migrationName(file: string): string {
  return file.replace(/\.[^.]+$/, "");
}
