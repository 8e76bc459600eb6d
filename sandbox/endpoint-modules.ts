// Every route the sandbox serves is a module of its own, found by listing sandbox/endpoints/ and
// its family folders: adding an endpoint is adding its file, named for the endpoint. A module is
// an endpoint of records (`sandboxEndpoint`), or a route written by hand (`sandboxRoute`).
import { readdirSync } from "node:fs";
import { basename, extname } from "node:path";
import type { SandboxDataset } from "./dataset/dataset.js";
import { API_PREFIX } from "../src/api/operation.js";
import { type SandboxEndpoint, endpointRoute, moduleOperation } from "./http/endpoint-route.js";
import { parseParams } from "./http/params.js";
import type { Route } from "./http/router.js";

const FOLDER = new URL("./endpoints/", import.meta.url);

/** The modules' files under the folder, by their paths within it, in order. */
const files = readdirSync(FOLDER, { recursive: true, encoding: "utf8" })
  .filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith(".d.ts"))
  .sort();

type EndpointModule = SandboxEndpoint | Route;

const isRoute = (module: EndpointModule): module is Route => "handle" in module;

/** A module's endpoint or route, checked: a path under the API's prefix. */
async function load(file: string): Promise<[string, EndpointModule]> {
  const loaded = (await import(new URL(file, FOLDER).href)) as { default?: EndpointModule };
  const module = loaded.default;
  if (!module) throw new Error(`sandbox/endpoints/${file} exports no default endpoint`);
  if (!module.path.startsWith(`${API_PREFIX}/`)) {
    throw new Error(`sandbox/endpoints/${file}: its path is not under ${API_PREFIX}/`);
  }
  return [basename(file, extname(file)), module];
}

/** The modules by their files' names, which are unique across the families. */
function byName(loaded: readonly [string, EndpointModule][]): Map<string, EndpointModule> {
  const modules = new Map<string, EndpointModule>();
  for (const [name, module] of loaded) {
    if (modules.has(name)) throw new Error(`two sandbox endpoint modules are named ${name}`);
    modules.set(name, module);
  }
  return modules;
}

const MODULES = byName(await Promise.all(files.map(load)));

/** The modules that are endpoints of records, by their files' names. */
export const ENDPOINT_MODULES: ReadonlyMap<string, SandboxEndpoint> = new Map(
  [...MODULES].flatMap(([name, module]) => (isRoute(module) ? [] : [[name, module] as const])),
);

/** Every route of the API, one a module. */
export const ENDPOINT_ROUTES: readonly Route[] = [...MODULES].map(([name, module]) =>
  isRoute(module) ? module : endpointRoute(name, module),
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
