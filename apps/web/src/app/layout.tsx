import { GeistMono } from "geist/font/mono";
import { GeistSans } from "geist/font/sans";
import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import { connection } from "next/server";
import type { ReactNode } from "react";
import { AppProviders } from "@/components/app-providers";
import { THEME_BOOT_SCRIPT } from "@/components/theme";
import { NONCE_HEADER } from "@/lib/content-security-policy";
import { readRuntimeConfig } from "@/lib/runtime-config";
import "../styles/base.css";
import "../styles/controls.css";
import "../styles/layout.css";
import "../styles/workspace.css";
import "../styles/session-controls.css";
import "../styles/allowances.css";
import "../styles/timeline.css";
import "../styles/cards.css";
import "../styles/interaction-cards.css";
import "../styles/composer-inbox.css";
import "../styles/small-screens.css";
import "../styles/markdown.css";

export const metadata: Metadata = {
  title: "Parley",
  description: "Agent sessions with a person in the loop",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Read the API location per request, so one build works against any API.
  await connection();
  const config = readRuntimeConfig(process.env);
  // The Content-Security-Policy's per-request nonce (src/proxy.ts): inline scripts run only with it.
  const nonce = (await headers()).get(NONCE_HEADER) ?? undefined;
  return (
    <html lang="en" className={`${GeistSans.variable} ${GeistMono.variable}`} suppressHydrationWarning>
      <head>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant script, so the stored theme applies before paint */}
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
      </head>
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <AppProviders config={config}>{children}</AppProviders>
      </body>
    </html>
  );
}
