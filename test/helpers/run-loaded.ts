// `npm run test:loaded`: the suite with every core kept busy by a loop beside it, as on a shared
// CI runner. A test that depends on how fast the machine happens to be fails here before it
// fails CI. Arguments go to vitest (`npm run test:loaded -- test/http`).
import { type ChildProcess, spawn } from "node:child_process";
import { availableParallelism } from "node:os";

const loops: ChildProcess[] = Array.from({ length: availableParallelism() }, () =>
  spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
);
const stopLoops = () => {
  for (const loop of loops) loop.kill("SIGKILL");
};
process.on("exit", stopLoops);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    stopLoops();
    process.exit(130);
  });
}

const suite = spawn("npm", ["test", "--", ...process.argv.slice(2)], { stdio: "inherit" });
suite.on("exit", (code, signal) => {
  stopLoops();
  process.exit(code ?? (signal ? 1 : 0));
});
