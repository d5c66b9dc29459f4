import type { DiffLine } from "@/lib/interaction-view";

/** A unified diff, one line per row, coloured by kind; `label` is read out before the lines. */
export function DiffView({
  lines,
  label,
  testId,
}: {
  lines: readonly DiffLine[];
  label: string;
  testId?: string;
}) {
  return (
    <pre className="diff" data-testid={testId}>
      <span className="sr-only">{label}</span>
      {lines.map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: diff lines are positional
        <span key={index} className={`diff-line ${line.kind}`}>
          {line.text}
        </span>
      ))}
    </pre>
  );
}
