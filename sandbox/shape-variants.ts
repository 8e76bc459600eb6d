// Named sets of shape knobs, for `npm run sandbox -- --shapes a,b` and for tests that run the
// ETL against shapes it was not designed for.
import { OTHER_SHAPE_VARIANTS } from "./endpoint-modules.js";
import type { KnobsPatch, ShapeKnobs } from "./interfaces.js";

const CAP = 7;
/** One GET answer in ten declares failure: often enough that every sync meets several. */
const FAILURE_RATE = 0.1;

/** The habits of independently written (PHP) upstreams of the same spec, one variant each. */
const HABITS = {
  "failure-envelopes": { shapes: { failureEnvelopeRate: FAILURE_RATE } },
  "money-decimals": { shapes: { moneyDecimals: 4 } },
  "numeric-booleans": { shapes: { booleans: "mixed" } },
  "sql-datetimes": { shapes: { datetimes: "sql" } },
  "named-objects": { shapes: { namedObjects: true } },
  "list-snapshots": { shapes: { listSnapshots: true } },
  "php-empty": { shapes: { phpEmpty: true, emptyCases: true } },
  latin1: { shapes: { charset: "iso-8859-1" } },
  "renamed-fields": { shapes: { renamedFields: true } },
} satisfies Record<string, KnobsPatch>;

/** Every endpoint module's other shape. */
const OTHER_SHAPES = [...OTHER_SHAPE_VARIANTS.values()];

/** The variants of the sandbox's own shapes and habits. */
const OWN_VARIANTS = {
  "capped-pages": { shapes: { pageCap: CAP } },
  "page-number": { shapes: { royaltiesPaging: "page-number" } },
  "next-link": { shapes: { royaltiesPaging: "next-link" } },
  laravel: { shapes: { royaltiesPaging: "laravel" } },
  "wrapped-objects": { shapes: { wrappedObjects: true } },
  "incomes-without-ids": { shapes: { incomesWithoutIds: true } },
  "stat-date-field": { shapes: { statPoints: "date-field" } },
  "stat-pairs": { shapes: { statPoints: "pairs" } },
  "stat-metric-rows": { shapes: { statPoints: "metric-rows" } },
  "charts-length": { chartsShape: "wrapped", shapes: { pageCap: CAP } },
  "trends-object": { listShape: "object", shapes: { pageCap: CAP } },
  "all-alternative": {
    shapes: {
      otherShapes: OTHER_SHAPES,
      pageCap: CAP,
      royaltiesPaging: "laravel",
      wrappedObjects: true,
      incomesWithoutIds: true,
      statPoints: "metric-rows",
    },
  },
  ...HABITS,
  // Every habit at once, with the alternative shapes that do not set the same knobs.
  "all-habits": {
    shapes: Object.values(HABITS).reduce<Partial<ShapeKnobs>>(
      (all, habit) => ({ ...all, ...habit.shapes }),
      { otherShapes: OTHER_SHAPES, pageCap: CAP, incomesWithoutIds: true },
    ),
  },
} satisfies Record<string, KnobsPatch>;

/** Each endpoint module's other shape, selected by the variant it names. */
const MODULE_VARIANTS = Object.fromEntries(
  [...OTHER_SHAPE_VARIANTS].map(([variant, name]): [string, KnobsPatch] => {
    if (Object.hasOwn(OWN_VARIANTS, variant)) {
      throw new Error(`endpoint module ${name} names a shape variant the sandbox has: ${variant}`);
    }
    return [variant, { shapes: { otherShapes: [name] } }];
  }),
);

/** Name -> the knobs that select that variant. */
export const SHAPE_VARIANTS: Readonly<Record<string, KnobsPatch>> = {
  ...MODULE_VARIANTS,
  ...OWN_VARIANTS,
};

/**
 * One patch of the named variants, in order: a later one wins a knob both set, except
 * `otherShapes`, which adds up. Throws on an unknown name.
 */
export function shapeVariantsPatch(names: readonly string[]): KnobsPatch {
  let patch: KnobsPatch = {};
  for (const name of names) {
    const variant = SHAPE_VARIANTS[name];
    if (!variant) {
      throw new Error(
        `unknown shape variant ${JSON.stringify(name)}; known: ${Object.keys(SHAPE_VARIANTS).join(", ")}`,
      );
    }
    patch = {
      ...patch,
      ...variant,
      drift: { ...patch.drift, ...variant.drift },
      shapes: {
        ...patch.shapes,
        ...variant.shapes,
        ...otherShapesOf(patch.shapes, variant.shapes),
      },
    };
  }
  if (Object.keys(patch.drift ?? {}).length === 0) delete patch.drift;
  if (Object.keys(patch.shapes ?? {}).length === 0) delete patch.shapes;
  return patch;
}

/** Variants naming other shapes each add theirs: two modules' variants serve both. */
function otherShapesOf(...patches: (Partial<ShapeKnobs> | undefined)[]): Partial<ShapeKnobs> {
  const names = patches.flatMap((patch) => patch?.otherShapes ?? []);
  return names.length === 0 ? {} : { otherShapes: [...new Set(names)] };
}
