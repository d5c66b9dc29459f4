import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { FILE_PART_MAX_BYTES, type FilePart, type SourcePart } from "../../schema/parts.js";

type FileStreamPart = Extract<LanguageModelV3StreamPart, { type: "file" }>;
type SourceStreamPart = Extract<LanguageModelV3StreamPart, { type: "source" }>;

/** Base64 of bytes without Node's Buffer (session-core runs in browsers too). */
function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The decoded size of a base64 string. */
function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** A model's file as a stored part: a `data:` URL, or only its type and size when too large. */
export function filePartOf(part: FileStreamPart, part_id: string, sequence: number): FilePart {
  const size_bytes = typeof part.data === "string" ? base64Bytes(part.data) : part.data.byteLength;
  const base = { part_id, sequence, type: "file" as const, media_type: part.mediaType, size_bytes };
  if (size_bytes > FILE_PART_MAX_BYTES) return { ...base, omitted: true };
  const data = typeof part.data === "string" ? part.data : toBase64(part.data);
  return { ...base, url: `data:${part.mediaType};base64,${data}` };
}

/** A cited source as a stored part. */
export function sourcePartOf(part: SourceStreamPart, part_id: string, sequence: number): SourcePart {
  const base = { part_id, sequence, type: "source" as const, source_id: part.id };
  if (part.sourceType === "url") {
    return {
      ...base,
      source_type: "url",
      url: part.url,
      ...(part.title === undefined ? {} : { title: part.title }),
    };
  }
  return {
    ...base,
    source_type: "document",
    media_type: part.mediaType,
    title: part.title,
    ...(part.filename === undefined ? {} : { filename: part.filename }),
  };
}
