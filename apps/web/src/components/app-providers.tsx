"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import type { RuntimeConfig } from "@/lib/runtime-config";
import { AuthProvider } from "./auth-provider";
import { ConnectionProvider } from "./connection-provider";
import { ThemeProvider } from "./theme";

export function AppProviders({ config, children }: { config: RuntimeConfig; children: ReactNode }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false, staleTime: 5_000 } },
      }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <ConnectionProvider apiUrl={config.api_url}>
        <ThemeProvider>
          <AuthProvider config={config}>{children}</AuthProvider>
        </ThemeProvider>
      </ConnectionProvider>
    </QueryClientProvider>
  );
}
