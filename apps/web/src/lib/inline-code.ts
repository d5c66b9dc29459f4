/** A run of assistant text: plain, or an inline code span the model wrote between backticks. */
export interface TextRun {
  readonly code: boolean;
  readonly text: string;
}

/**
 * Splits text on complete single-backtick spans (`like this`) on one line. An unmatched backtick,
 * e.g. while a reply is still streaming, stays plain text until its closing one arrives.
 */
export function splitInlineCode(text: string): TextRun[] {
  const runs: TextRun[] = [];
  let last = 0;
  for (const match of text.matchAll(/`([^`\n]+)`/g)) {
    if (match.index > last) runs.push({ code: false, text: text.slice(last, match.index) });
    runs.push({ code: true, text: match[1] ?? "" });
    last = match.index + match[0].length;
  }
  if (last < text.length) runs.push({ code: false, text: text.slice(last) });
  return runs;
}
