const utf8 = new TextEncoder();

/** Postgres `jsonb`'s order of object keys: the shorter in UTF-8 bytes first, then bytewise. */
function compareKeys(left: string, right: string): number {
  const a = utf8.encode(left);
  const b = utf8.encode(right);
  if (a.length !== b.length) return a.length - b.length;
  for (let index = 0; index < a.length; index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * A copy of `value` whose objects list their keys as Postgres returns a `jsonb` value. A stored
 * message reads back with its keys reordered, and the model's prompt serialises tool inputs and
 * results: the in-memory store stores messages this way so that what it gives back (and the prompt
 * built from it) is what the Postgres store gives. Values are kept as they are; only plain objects
 * are rebuilt.
 */
export function inJsonbKeyOrder<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => inJsonbKeyOrder(item)) as T;
  if (!isPlainObject(value)) return value;
  const ordered: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort(compareKeys)) ordered[key] = inJsonbKeyOrder(value[key]);
  return ordered as T;
}
