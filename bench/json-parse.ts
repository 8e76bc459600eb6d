import { parse as losslessParse } from "lossless-json";
import { JsonDecimal, jsonText } from "../src/json/json-body.js";
import { parseJsonBytes } from "../src/json/json-bytes.js";
import { atMost, round, type SectionResult } from "./report.js";

const MIB = 1024 * 1024;
const WARM_UP = 2;
const ROUNDS = 7;

/**
 * A day's trend list as a body: names with accents, counts, decimals, and a few numbers a double
 * would change (trailing zeros, more digits than it holds), which every parser here must keep.
 */
function trendListBody(items: number): Buffer {
  const records = [];
  for (let i = 0; i < items; i++) {
    const amount = i % 97 === 0 ? "12.3400" : i % 89 === 0 ? "12345678901234567.25" : "5.5";
    records.push(
      `{"id":"P-${i}","name":"Señorita Live ${i} — Zoë","count":${(i * 7919) % 250_000},` +
        `"percentage":${((i * 31) % 10_000) / 100},"amount":${amount},` +
        `"label":{"id":${i % 97},"name":"Label ${i % 97}"}}`,
    );
  }
  return Buffer.from(`{"data":[${records.join(",")}],"total":${items}}`);
}

/** A number as src/json keeps it: a double where that gives its text back, else its text. */
function exactNumber(text: string): number | JsonDecimal {
  return String(Number(text)) === text ? Number(text) : new JsonDecimal(text);
}

function medianMs(parse: () => unknown): number {
  const times: number[] = [];
  for (let round = 0; round < WARM_UP + ROUNDS; round++) {
    const started = performance.now();
    parse();
    if (round >= WARM_UP) times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? 0;
}

/**
 * 12. The body parser: src/json, which keeps every number's digits on top of JSON.parse, against
 * lossless-json, the library that does the same in JavaScript, and against JSON.parse alone (the
 * floor, which changes those numbers). Node 22's JSON.parse hands a reviver each number's source
 * text, but this project runs on Node 20 too, and a reviver is called for every value.
 */
export function jsonParse(items = 40_000): SectionResult {
  const body = trendListBody(items);
  const mib = body.length / MIB;
  const ours = medianMs(() => parseJsonBytes(body));
  const library = medianMs(() => losslessParse(body.toString("utf8"), null, exactNumber));
  const native = medianMs(() => JSON.parse(body.toString("utf8")));
  const same =
    jsonText(parseJsonBytes(body)) ===
    jsonText(losslessParse(body.toString("utf8"), null, exactNumber));
  return {
    section: "12 body parser",
    figures: [
      { name: "body", value: round(mib, 1), unit: "MiB" },
      { name: "src/json (parseJsonBytes)", value: round(ours), unit: "ms" },
      { name: "lossless-json", value: round(library), unit: "ms" },
      { name: "JSON.parse, digits lost", value: round(native), unit: "ms" },
      { name: "src/json, MiB/s", value: round(mib / (ours / 1000)) },
      { name: "lossless-json, MiB/s", value: round(mib / (library / 1000)) },
    ],
    targets: [
      atMost("src/json ÷ lossless-json", ours / library, 1),
      atMost("bodies parsed differently by the two", same ? 0 : 1, 0),
    ],
  };
}
