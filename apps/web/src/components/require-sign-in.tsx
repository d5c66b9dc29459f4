"use client";

import { useRouter } from "next/navigation";
import { type ReactNode, useEffect } from "react";
import { useAuth } from "./auth-provider";
import { ErrorState, LoadingState } from "./states";

/** Renders children only for a signed-in user; otherwise sends the person to the sign-in page. */
export function RequireSignIn({ children }: { children: ReactNode }) {
  const { state, retry, apiUrl } = useAuth();
  const router = useRouter();
  useEffect(() => {
    if (state.status === "signed-out") router.replace("/sign-in");
  }, [state.status, router]);

  if (state.status === "signed-in") return <>{children}</>;
  if (state.status === "unreachable") {
    return (
      <main className="centered-page">
        <ErrorState
          title="Can't reach the Parley API"
          message={`${apiUrl}: ${state.error.message}`}
          action={{ label: "Try again", onClick: retry }}
        />
      </main>
    );
  }
  return (
    <main className="centered-page">
      <LoadingState label={state.status === "checking" ? "Signing in…" : "Redirecting to sign-in…"} />
    </main>
  );
}
