import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The version of the nearest package.json above this module. Searched for rather than imported:
 * this file runs from src/ as source, from dist/src/cli in the built CLI's bundle, and the image
 * keeps package.json beside dist/, not in it.
 */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        readonly version?: unknown;
      };
      return typeof manifest.version === "string" ? manifest.version : "unknown";
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    const parent = dirname(dir);
    if (parent === dir) return "unknown";
    dir = parent;
  }
}
