"use client";

import { useQueryClient } from "@tanstack/react-query";
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react";
import { fetchLocalSessionToken } from "@/lib/local-session";
import { type DisplayError, type ParleyApi, toDisplayError, type WhoAmI } from "@/lib/parley-api";
import { createParleyApi } from "@/lib/parley-client";
import type { RuntimeConfig } from "@/lib/runtime-config";

const TOKEN_KEY = "parley.token";
/** Set by an explicit sign-out so the local session (its cookie) does not sign the person straight back in. */
const SIGNED_OUT_KEY = "parley.signed-out";

export type AuthState =
  | { status: "checking" }
  | { status: "signed-out"; reason?: DisplayError }
  | { status: "unreachable"; error: DisplayError }
  | { status: "signed-in"; api: ParleyApi; me: WhoAmI };

interface AuthContextValue {
  readonly state: AuthState;
  readonly apiUrl: string;
  /** True under the root `npm start`, whose one-time link signs a browser in (`local-sign-in.mjs`). */
  readonly hasLocalSignIn: boolean;
  signIn(token: string): Promise<DisplayError | null>;
  /** Signs in again with this browser's local session (its cookie) after an explicit sign-out. */
  signInLocally(): Promise<DisplayError | null>;
  signOut(): void;
  retry(): void;
}

const AuthContext = createContext<AuthContextValue | null>(null);

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error("useAuth must be used inside <AuthProvider>");
  return value;
}

/** The signed-in API and user; only call below a `<RequireSignIn>`. */
export function useSignedIn(): { api: ParleyApi; me: WhoAmI } {
  const { state } = useAuth();
  if (state.status !== "signed-in") throw new Error("useSignedIn called while not signed in");
  return state;
}

async function verify(apiUrl: string, token: string): Promise<{ api: ParleyApi; me: WhoAmI }> {
  const api = createParleyApi({ url: apiUrl, token });
  try {
    return { api, me: await api.whoami() };
  } catch (error) {
    api.close();
    throw error;
  }
}

export function AuthProvider({ config, children }: { config: RuntimeConfig; children: ReactNode }) {
  const [state, setState] = useState<AuthState>({ status: "checking" });
  const [attempt, setAttempt] = useState(0);
  const queryClient = useQueryClient();

  // biome-ignore lint/correctness/useExhaustiveDependencies: attempt re-runs the check on "Try again"
  useEffect(() => {
    let cancelled = false;
    const stored = window.localStorage.getItem(TOKEN_KEY);
    const signedOut = window.localStorage.getItem(SIGNED_OUT_KEY) === "1";
    setState({ status: "checking" });
    // A pasted token is remembered; the local session's token is asked for again at each load.
    const token: Promise<string | null> =
      stored !== null
        ? Promise.resolve(stored)
        : signedOut || !config.local_sign_in
          ? Promise.resolve(null)
          : fetchLocalSessionToken().catch(() => null);
    token
      .then((value) => {
        if (cancelled) return;
        if (value === null) return setState({ status: "signed-out" });
        return verify(config.api_url, value).then(
          (session) => {
            if (cancelled) return session.api.close();
            setState({ status: "signed-in", ...session });
          },
          (error: unknown) => {
            if (cancelled) return;
            const display = toDisplayError(error);
            if (display.code === "unauthorized") {
              window.localStorage.removeItem(TOKEN_KEY);
              setState({ status: "signed-out", reason: display });
            } else {
              setState({ status: "unreachable", error: display });
            }
          },
        );
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [config.api_url, config.local_sign_in, attempt]);

  useEffect(() => {
    if (state.status !== "signed-in") return;
    const { api } = state;
    return () => api.close();
  }, [state]);

  /** `remember`: keep the token in this browser's storage (a pasted one; never the local session's). */
  const startSession = useCallback(
    async (token: string, remember: boolean): Promise<DisplayError | null> => {
      try {
        const session = await verify(config.api_url, token.trim());
        if (remember) window.localStorage.setItem(TOKEN_KEY, token.trim());
        window.localStorage.removeItem(SIGNED_OUT_KEY);
        queryClient.clear();
        setState({ status: "signed-in", ...session });
        return null;
      } catch (error) {
        return toDisplayError(error);
      }
    },
    [config.api_url, queryClient],
  );

  const signIn = useCallback((token: string) => startSession(token, true), [startSession]);

  const signOut = useCallback(() => {
    window.localStorage.removeItem(TOKEN_KEY);
    window.localStorage.setItem(SIGNED_OUT_KEY, "1");
    queryClient.clear();
    setState({ status: "signed-out" });
  }, [queryClient]);

  const retry = useCallback(() => setAttempt((value) => value + 1), []);

  const signInLocally = useCallback(async (): Promise<DisplayError | null> => {
    const token = await fetchLocalSessionToken().catch(() => null);
    if (token === null) {
      return {
        code: "unauthorized",
        message:
          "This browser has not opened the sign-in link that npm start printed (each link works once).",
      };
    }
    return startSession(token, false);
  }, [startSession]);

  const value = useMemo(
    () => ({
      state,
      apiUrl: config.api_url,
      hasLocalSignIn: config.local_sign_in,
      signIn,
      signInLocally,
      signOut,
      retry,
    }),
    [state, config.api_url, config.local_sign_in, signIn, signInLocally, signOut, retry],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
