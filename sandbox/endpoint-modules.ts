// The endpoints served from a module each, found by listing sandbox/endpoints/: adding one is
// adding its file, named for the endpoint.
import { readdirSync } from "node:fs";
import { basename, extname } from "node:path";
import type { SandboxDataset } from "./dataset/dataset.js";
import { API_PREFIX } from "../src/api/operation.js";
import { type SandboxEndpoint, endpointRoute, moduleOperation } from "./http/endpoint-route.js";
import { parseParams } from "./http/params.js";
import type { Route } from "./http/router.js";

const FOLDER = new URL("./endpoints/", import.meta.url);

const files = readdirSync(FOLDER)
  .filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith(".d.ts"))
  .sort();

/** A module's endpoint, checked: a path under the API's prefix. */
async function load(file: string): Promise<[string, SandboxEndpoint]> {
  const loaded = (await import(new URL(file, FOLDER).href)) as { default?: SandboxEndpoint };
  const endpoint = loaded.default;
  if (!endpoint) throw new Error(`sandbox/endpoints/${file} exports no default endpoint`);
  if (!endpoint.path.startsWith(`${API_PREFIX}/`)) {
    throw new Error(`sandbox/endpoints/${file}: its path is not under ${API_PREFIX}/`);
  }
  return [basename(file, extname(file)), endpoint];
}

/** Each module's endpoint, by its file's name. */
export const ENDPOINT_MODULES: ReadonlyMap<string, SandboxEndpoint> = new Map(
  await Promise.all(files.map(load)),
);

export const ENDPOINT_ROUTES: readonly Route[] = [...ENDPOINT_MODULES].map(([name, endpoint]) =>
  endpointRoute(name, endpoint),
);

function otherShapeVariants(): Map<string, string> {
  const variants = new Map<string, string>();
  for (const [name, { otherShape }] of ENDPOINT_MODULES) {
    if (!otherShape) continue;
    const taken = variants.get(otherShape.variant);
    if (taken) throw new Error(`${name} and ${taken} name one shape variant ${otherShape.variant}`);
    variants.set(otherShape.variant, name);
  }
  return variants;
}

/** The module endpoints that have another shape, by the shape variant selecting it. */
export const OTHER_SHAPE_VARIANTS: ReadonlyMap<string, string> = otherShapeVariants();

/** The renamed-fields habit's names of the modules' fields, by operation. */
export const MODULE_RENAMED_FIELDS: Readonly<Record<string, Readonly<Record<string, string>>>> =
  Object.fromEntries(
    [...ENDPOINT_MODULES.values()].flatMap((endpoint) =>
      endpoint.renamedFields ? [[moduleOperation(endpoint), endpoint.renamedFields]] : [],
    ),
  );

/**
 * What the module `name` serves for `params` (read as its route reads a query), from `data` at
 * its revision: the truth of the tests. Throws for an unknown module.
 */
export function endpointRecords(
  name: string,
  data: SandboxDataset,
  params: Record<string, unknown>,
): readonly unknown[] {
  const endpoint = ENDPOINT_MODULES.get(name);
  if (!endpoint) throw new Error(`no sandbox endpoint module ${name}`);
  return endpoint.records(data, parseParams(params, endpoint.params));
}
