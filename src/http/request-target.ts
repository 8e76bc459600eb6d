/** Where a request goes: the upstream's origin, and the path and query sent as they are. */
export interface RequestTarget {
  readonly origin: string;
  readonly path: string;
}

/**
 * The target of `path` (already encoded, with or without a query) below `baseUrl`, with `query`
 * added. Never through `new URL(base + path)`: a URL resolves dot segments, even encoded ones
 * (`%2E%2E`), so a value "..", one segment of the path, would reach its parent instead. Added
 * parameters are encoded as a form's (URLSearchParams); a query the path brought (a link the
 * upstream gave) is kept as it came when none is added.
 */
export function requestTarget(
  baseUrl: string,
  path: string,
  query: Readonly<Record<string, string | number | boolean | undefined>> = {},
): RequestTarget {
  const base = new URL(baseUrl);
  const mark = path.indexOf("?");
  const pathname = mark === -1 ? path : path.slice(0, mark);
  const search = mark === -1 ? "" : path.slice(mark + 1);
  const added = Object.entries(query).filter(([, value]) => value !== undefined);
  let fullQuery = search;
  if (added.length > 0) {
    const params = new URLSearchParams(search);
    for (const [name, value] of added) params.set(name, String(value));
    fullQuery = params.toString();
  }
  return {
    origin: base.origin,
    path: `${base.pathname.replace(/\/+$/, "")}${pathname}${fullQuery === "" ? "" : `?${fullQuery}`}`,
  };
}
