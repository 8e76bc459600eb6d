/**
 * A setting given per stream or family (`{"default": …, "<stream or family>": …}`): a stream's
 * own entry wins over its family's, and `default` over `fallback`.
 */
export function perStream<T>(
  setting: Readonly<Record<string, T>>,
  stream: { readonly name: string; readonly family: string },
  fallback: T,
): T {
  return setting[stream.name] ?? setting[stream.family] ?? setting.default ?? fallback;
}

/** The keys of a per-stream setting that name no stream nor family (`named`): a typo, refused. */
export function unknownStreamKeys(
  setting: Readonly<Record<string, unknown>>,
  named: readonly string[],
): string[] {
  return Object.keys(setting).filter((key) => key !== "default" && !named.includes(key));
}
