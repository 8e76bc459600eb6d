import { z } from "zod";

/**
 * Whether a stream's kept tables record the values the upstream restates (the `history` schema):
 * `{"default": true, "royalties": false}`, per stream or family. On unless switched off: a
 * restated value is otherwise lost for good.
 */
export const historySettingSchema = z
  .record(z.string(), z.boolean({ error: "must be true or false" }))
  .default({});
