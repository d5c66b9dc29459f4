"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import type { RuntimeConfig } from "@/lib/runtime-config";
import { AuthProvider } from "./auth-provider";

export function AppProviders({ config, children }: { config: RuntimeConfig; children: ReactNode }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false, staleTime: 5_000 } },
      }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <AuthProvider config={config}>{children}</AuthProvider>
    </QueryClientProvider>
  );
}
