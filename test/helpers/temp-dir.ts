import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TempDir {
  readonly path: string;
  write(name: string, content: string | object): string;
  remove(): void;
}

export function makeTempDir(label: string): TempDir {
  const path = mkdtempSync(join(tmpdir(), `music-etl-${label}-`));
  return {
    path,
    write(name, content) {
      const file = join(path, name);
      writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
      return file;
    },
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}
