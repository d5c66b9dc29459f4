import type { JsonValue } from "./json.js";

/** What U+0000 becomes: PostgreSQL text and jsonb cannot hold it (a commit with it fails). */
export const STORABLE_NUL_REPLACEMENT = "\u2400";

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `text` as it can be stored anywhere: U+0000 becomes ␀ (U+2400) and an unpaired UTF-16 surrogate
 * (which has no UTF-8 form) becomes U+FFFD. Everything else is unchanged.
 */
export function storableText(text: string): string {
  return text.replaceAll("\u0000", STORABLE_NUL_REPLACEMENT).replace(LONE_SURROGATE, "\uFFFD");
}

/**
 * A tool's output as JSON that can be stored whatever it holds: the JSON form of `value` (as
 * `JSON.stringify` sees it) with `storableText` applied to every string and object key. Tools that
 * read bytes decode them and add a note themselves (`@parley/tools`); this is the net under every
 * tool, so that no output can fail the commit that records it.
 */
export function toStorableJson(value: unknown): JsonValue {
  return storable(JSON.parse(JSON.stringify(value)) as JsonValue);
}

function storable(value: JsonValue): JsonValue {
  if (typeof value === "string") return storableText(value);
  if (Array.isArray(value)) return value.map(storable);
  if (value !== null && typeof value === "object") {
    // fromEntries defines own properties, so a "__proto__" key stays a plain key.
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [storableText(key), storable(item)]),
    );
  }
  return value;
}
