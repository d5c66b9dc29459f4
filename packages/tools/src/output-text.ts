/** What a NUL byte becomes in tool output: PostgreSQL text and jsonb cannot hold U+0000. */
export const NUL_REPLACEMENT = "\u2400";
/** What an invalid UTF-8 sequence becomes (the standard replacement character). */
export const INVALID_UTF8_REPLACEMENT = "\uFFFD";

export interface DecodedOutput {
  text: string;
  nul_bytes: number;
  invalid_sequences: number;
}

const fatalDecoder = new TextDecoder("utf-8", { fatal: true });
const lenientDecoder = new TextDecoder("utf-8", { fatal: false });

/**
 * Turns bytes a tool read (command output, a file) into text that can be stored and shown whatever
 * they hold: invalid UTF-8 becomes U+FFFD, NUL becomes U+2400 (␀), and the counts say what was
 * replaced so the tool can add a note. `cut` says the bytes were cut at a cap: an incomplete
 * multi-byte character at the very end is dropped rather than reported as invalid.
 */
export function decodeOutputBytes(bytes: Uint8Array, options: { cut?: boolean } = {}): DecodedOutput {
  const complete = options.cut ? withoutIncompleteTail(bytes) : bytes;
  let text: string;
  let invalid_sequences = 0;
  try {
    text = fatalDecoder.decode(complete);
  } catch {
    text = lenientDecoder.decode(complete);
    // A U+FFFD already present as valid UTF-8 is counted too; the rule only says invalid bytes are "replaced", and
    // output that held U+FFFD as well as invalid bytes is rare enough not to matter.
    invalid_sequences = countOccurrences(text, INVALID_UTF8_REPLACEMENT);
  }
  const nul_bytes = countOccurrences(text, "\u0000");
  if (nul_bytes > 0) text = text.replaceAll("\u0000", NUL_REPLACEMENT);
  return { text, nul_bytes, invalid_sequences };
}

/**
 * One sentence for a tool result's `note`, naming what was replaced in which field; undefined when
 * nothing was.
 */
export function replacementNote(fields: Array<{ name: string; decoded: DecodedOutput }>): string | undefined {
  const parts: string[] = [];
  for (const { name, decoded } of fields) {
    const replaced: string[] = [];
    if (decoded.nul_bytes > 0) {
      replaced.push(
        `${decoded.nul_bytes} NUL byte${decoded.nul_bytes === 1 ? "" : "s"} shown as ${NUL_REPLACEMENT}`,
      );
    }
    if (decoded.invalid_sequences > 0) {
      const count = decoded.invalid_sequences;
      replaced.push(
        `${count} invalid UTF-8 sequence${count === 1 ? "" : "s"} shown as ${INVALID_UTF8_REPLACEMENT}`,
      );
    }
    if (replaced.length > 0) parts.push(`${name}: ${replaced.join(", ")}`);
  }
  return parts.length === 0 ? undefined : `Binary output replaced (${parts.join("; ")}).`;
}

/** Drops a trailing, incomplete UTF-8 multi-byte sequence (at most 3 bytes). */
function withoutIncompleteTail(bytes: Uint8Array): Uint8Array {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back] as number;
    if ((byte & 0xc0) !== 0x80) {
      // A lead byte: how long its sequence should be.
      const expected = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
      return expected > back ? bytes.subarray(0, bytes.length - back) : bytes;
    }
  }
  return bytes;
}

function countOccurrences(text: string, character: string): number {
  let count = 0;
  for (let index = text.indexOf(character); index >= 0; index = text.indexOf(character, index + 1)) count++;
  return count;
}
