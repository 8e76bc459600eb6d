/**
 * The entity a request is about, from the query parameters that name one (`id`, or any `…_id`
 * such as `artist_id`): "artist_id 9999999". A failure no retry can cure is told, and reported,
 * by it.
 */
export function subjectOf(
  query: Readonly<Record<string, string | number | boolean | undefined>> | undefined,
): {
  subject?: string;
} {
  const named = Object.entries(query ?? {}).filter(
    ([name, value]) => (name === "id" || name.endsWith("_id")) && value !== undefined,
  );
  if (named.length === 0) return {};
  return { subject: named.map(([name, value]) => `${name} ${String(value)}`).join(", ") };
}
