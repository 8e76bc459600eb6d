/**
 * The path below `baseUrl` of a link the upstream gave (a next page), or null when the link
 * leads anywhere else: the credential is only ever sent to the configured upstream.
 */
export function linkPath(baseUrl: string, link: string): string | null {
  const base = new URL(baseUrl);
  let url: URL;
  try {
    url = new URL(link, base);
  } catch {
    return null;
  }
  const prefix = base.pathname.replace(/\/+$/, "");
  if (url.origin !== base.origin || !url.pathname.startsWith(`${prefix}/`)) return null;
  return url.pathname.slice(prefix.length) + url.search;
}
