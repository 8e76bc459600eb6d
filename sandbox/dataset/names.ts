import { type Rng, rngFor } from "../prng.js";

// Text that breaks naive SQL, CSV/COPY, HTML and byte-length assumptions. A share of every
// generated name list is drawn from here so the whole pipeline meets it in normal runs.
export const HOSTILE_NAMES: readonly string[] = [
  "Robert'); DROP TABLE x;--",
  'O\'Connor & "The Quotes"',
  "Semi;colon; Collective",
  "日本語の夢",
  "Ελληνικά Νύχτα",
  "العربية موسيقى",
  "🎸 Emoji Rockers 🤘",
  "Back\\slash \\N Band",
  "Tab\tSeparated, Comma",
  '<script>alert("x")</script>',
  "Ünïcødé Çafé Ñoño",
  "Multi\nLine Title",
];

// Word lists are space-separated text: one word per line would bury the file.
const ADJECTIVES = (
  "Velvet Midnight Golden Electric Silent Crimson Neon Paper Wild Hollow Lunar " +
  "Amber Static Frozen Broken Distant Copper Violet"
).split(" ");
const NOUNS = (
  "Owls Harbor Echoes Rivers Machines Gardens Tides Lanterns Wolves Signals Mirrors " +
  "Horizons Ghosts Satellites Orchards Comets Bridges"
).split(" ");
const FIRST_NAMES = (
  "Lena Marcus Aiko Tomasz Inès Kofi Priya Sven Lucía Dmitri " + "Zara Mateo Noor Elif Jonah Freya"
).split(" ");
const LAST_NAMES = (
  "Marsh Okafor Tanaka Kowalski Moreau Mensah Sharma Lindqvist García Volkov Haddad " +
  "Rossi Berg Yılmaz Adeyemi Novak"
).split(" ");
const TITLE_FORMS = [
  "{a} {n}",
  "Echoes of {n}",
  "{a} Nights",
  "The {n} Sessions",
  "{n} ({a} Mix)",
  "Under {a} Skies",
];
const LABEL_SUFFIXES = ["Records", "Music", "Recordings", "Sound", "Audio", "Editions"];

function title(rng: Rng): string {
  return rng.pick(TITLE_FORMS).replace("{a}", rng.pick(ADJECTIVES)).replace("{n}", rng.pick(NOUNS));
}

const GENERATORS = {
  artist: (rng: Rng) =>
    rng.chance(0.5)
      ? `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`
      : `The ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)}`,
  product: title,
  track: title,
  label: (rng: Rng) => `${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} ${rng.pick(LABEL_SUFFIXES)}`,
  playlist: (rng: Rng) => `${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} Mix`,
  dsp: (rng: Rng) => `${rng.pick(ADJECTIVES)}${rng.pick(NOUNS).toLowerCase()}`,
  station: (rng: Rng) =>
    `${rng.pick(["Radio", "FM", "Wave"])} ${rng.pick(NOUNS)} ${rng.int(87, 108)}.${rng.int(0, 9)}`,
  person: (rng: Rng) => `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`,
};

type NameKind = keyof typeof GENERATORS;

/**
 * The name of the `index`-th entity of a kind. About one in seven is hostile text; which ones
 * depends on the seed, and the list is walked in order so small datasets get the worst first.
 */
export function nameFor(seed: number, kind: NameKind, ...key: number[]): string {
  const index = Math.abs(key.reduce((sum, part) => sum * 31 + part, 0));
  if ((((index + seed) % 7) + 7) % 7 === 3) {
    const hostile = HOSTILE_NAMES[Math.floor(index / 7) % HOSTILE_NAMES.length];
    if (hostile !== undefined) return hostile;
  }
  return GENERATORS[kind](rngFor(seed, "name", kind, ...key));
}
