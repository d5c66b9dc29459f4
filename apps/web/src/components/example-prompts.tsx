"use client";

/** One-click prompts for a new session; the built-in demo model understands each of them. */
const EXAMPLE_PROMPTS = [
  { label: "Write a file", prompt: "write todo.md: buy milk", asks_first: true },
  { label: "Look around", prompt: "list files", asks_first: false },
  { label: "Run a command", prompt: "run ls -la", asks_first: true },
  { label: "Get asked a question", prompt: "ask me where to deploy", asks_first: false },
] as const;

/** An example's label, with "(asks you first)" where an approval will be asked for. */
function exampleLabel(example: (typeof EXAMPLE_PROMPTS)[number], always_allow: boolean): string {
  return example.asks_first && !always_allow ? `${example.label} (asks you first)` : example.label;
}

/**
 * The example prompts as buttons (the empty session and the welcome page); `always_allow` drops
 * the "(asks you first)" that would not be true.
 */
export function ExamplePrompts({
  always_allow = false,
  disabled = false,
  onPick,
}: {
  always_allow?: boolean;
  disabled?: boolean;
  onPick: (prompt: string) => void;
}) {
  return (
    <fieldset className="examples">
      <legend className="sr-only">Example prompts</legend>
      {EXAMPLE_PROMPTS.map((example) => (
        <button
          key={example.prompt}
          type="button"
          className="button example"
          disabled={disabled}
          onClick={() => onPick(example.prompt)}
        >
          <span className="example-label">{exampleLabel(example, always_allow)}</span>
          <code>{example.prompt}</code>
        </button>
      ))}
    </fieldset>
  );
}
