import { describeShapeVariants } from "../helpers/shape-variant-suite.js";

// Part 2 of the shape variants (test/helpers/shape-variant-suite.ts): a file of its own, so
// that the parts run side by side.

describeShapeVariants(1);
