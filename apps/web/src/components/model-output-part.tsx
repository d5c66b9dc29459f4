"use client";

import type { FilePart, SourcePart } from "@parley/sdk";
import { Download, ExternalLink, FileText } from "lucide-react";
import { formatBytes } from "@/lib/interaction-view";

/** The file extension a download gets, from the media type's subtype ("image/png" → "png"). */
function extensionOf(media_type: string): string {
  const subtype = media_type.split("/")[1]?.split(/[+;]/)[0] ?? "";
  return /^[a-z0-9.-]{1,12}$/i.test(subtype) ? subtype : "bin";
}

/** A file the model produced: a download link, or a note when it was too large to keep. */
export function FilePartView({ part }: { part: FilePart }) {
  const label = `${part.media_type} · ${formatBytes(part.size_bytes)}`;
  return (
    <p className="model-file small icon-text" data-testid="model-file">
      <Download size={14} aria-hidden />
      {part.url !== undefined ? (
        <a href={part.url} download={`file.${extensionOf(part.media_type)}`}>
          Download the file the agent made ({label})
        </a>
      ) : (
        <span className="muted">The agent made a file ({label}) too large to keep here.</span>
      )}
    </p>
  );
}

/** A source the model cited: a link for a web page, the title (and file name) for a document. */
export function SourcePartView({ part }: { part: SourcePart }) {
  const http = part.url !== undefined && /^https?:\/\//i.test(part.url);
  return (
    <p className="model-source small icon-text" data-testid="model-source">
      {http ? <ExternalLink size={14} aria-hidden /> : <FileText size={14} aria-hidden />}
      <span className="muted">Source: </span>
      {http ? (
        <a href={part.url} target="_blank" rel="noopener noreferrer">
          {part.title ?? part.url}
        </a>
      ) : (
        <span>
          {part.title ?? part.source_id}
          {part.filename ? ` (${part.filename})` : ""}
        </span>
      )}
    </p>
  );
}
