import { z } from "zod";
import { ParleyError } from "../errors.js";
import {
  type InteractionPosition,
  interactionPositionSchema,
  type SessionPosition,
  sessionPositionSchema,
} from "./store-order.js";

/**
 * The positions a page cursor can carry, by the list it pages. A cursor names its list, so a cursor
 * of one list handed to another is refused rather than read as a position it never was.
 */
interface PagePositions {
  sessions: SessionPosition;
  interactions: InteractionPosition;
}

type PagedList = keyof PagePositions;

const PAGE_POSITION_SCHEMAS: { [List in PagedList]: z.ZodType<PagePositions[List]> } = {
  sessions: sessionPositionSchema,
  interactions: interactionPositionSchema,
};

/** What every cursor decodes to before its list's position schema reads `position`. */
const pageCursorEnvelopeSchema = z.strictObject({ list: z.string(), position: z.unknown() });

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function toBase64Url(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The text a base64url string encodes, or undefined when it is not base64url of UTF-8. */
function fromBase64Url(encoded: string): string | undefined {
  if (!BASE64URL.test(encoded)) return undefined;
  const base64 = encoded.replace(/-/g, "+").replace(/_/g, "/");
  try {
    const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
    const bytes = Uint8Array.from(binary, (character) => character.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The opaque cursor of a page: the list's name and the sort key of the page's last item, as
 * base64url (no padding) of JSON. Every store encodes its cursors here.
 */
export function encodePageCursor<List extends PagedList>(list: List, position: PagePositions[List]): string {
  // Through the schema, so that equal positions always encode alike (key order included).
  return toBase64Url(JSON.stringify({ list, position: PAGE_POSITION_SCHEMAS[list].parse(position) }));
}

/**
 * The position a cursor of `list` carries. Anything this module did not encode for that list —
 * garbage, a truncated or edited cursor, a cursor of another list — is `invalid_input`: a client
 * error, never a failure of the store. Only the canonical encoding is accepted, so a cursor edited
 * into another spelling of the same JSON is refused too.
 */
export function decodePageCursor<List extends PagedList>(list: List, cursor: string): PagePositions[List] {
  const text = fromBase64Url(cursor);
  let value: unknown;
  try {
    value = text === undefined ? undefined : JSON.parse(text);
  } catch {
    value = undefined;
  }
  const envelope = pageCursorEnvelopeSchema.safeParse(value);
  const positionSchema: z.ZodType<PagePositions[List]> = PAGE_POSITION_SCHEMAS[list];
  const position =
    envelope.success && envelope.data.list === list
      ? positionSchema.safeParse(envelope.data.position)
      : undefined;
  if (!position?.success || encodePageCursor(list, position.data) !== cursor) {
    throw new ParleyError(
      "invalid_input",
      `Invalid page cursor for the ${list} list: ${cursor.slice(0, 200)}`,
    );
  }
  return position.data;
}
