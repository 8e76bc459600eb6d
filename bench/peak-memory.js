// Preloaded into a process the bench measures (`node --import`): as the process exits, one line on
// standard error with its peak resident set size (the kernel's high-water mark). A process
// killed, or ended by V8 running out of heap, writes no such line. Plain JavaScript: the built
// CLI runs without a TypeScript loader.
import { writeSync } from "node:fs";
import process from "node:process";

/** The line's first word, as bench/response-memory.ts looks for it. */
const PEAK_MEMORY_LINE = "bench-peak-memory";

process.on("exit", () => {
  const peak = { rssBytes: process.resourceUsage().maxRSS * 1024 };
  writeSync(2, `${PEAK_MEMORY_LINE} ${JSON.stringify(peak)}\n`);
});
