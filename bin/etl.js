#!/usr/bin/env node
// `etl`, the command line as its messages write it. In a clone, `npx etl <command>` runs the
// TypeScript as it is (tsx registered in this process); the image has `etl` on its PATH, running
// the build.
import process from "node:process";
import { clearInterval, setInterval } from "node:timers";
import { register } from "tsx/esm/api";

// npx starts this through a shell that dies of a stop signal without passing it on: when the
// process that started this one is gone, the command stops as that signal would have stopped it.
const launcher = process.ppid;
const orphaned = setInterval(() => {
  if (process.ppid === launcher) return;
  clearInterval(orphaned);
  process.kill(process.pid, "SIGTERM");
}, 500);
orphaned.unref();

register();
await import("../src/cli/main.ts");
