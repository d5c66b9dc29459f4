"use client";

import { KeyRound } from "lucide-react";
import { useRouter } from "next/navigation";
import { type FormEvent, useEffect, useId, useState } from "react";
import { useAuth } from "./auth-provider";
import { LoadingState } from "./states";

export function SignInForm() {
  const { state, signIn, signInLocally, hasLocalSignIn, apiUrl } = useAuth();
  const router = useRouter();
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const fieldId = useId();
  const errorId = useId();

  useEffect(() => {
    if (state.status === "signed-in") router.replace("/");
  }, [state.status, router]);

  if (state.status === "checking" || state.status === "signed-in") {
    return (
      <main className="centered-page">
        <LoadingState label="Signing in…" />
      </main>
    );
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!token.trim()) return;
    setBusy(true);
    setError(null);
    const failure = await signIn(token);
    setBusy(false);
    if (failure) {
      setError(failure.code === "unauthorized" ? "That token was not accepted." : failure.message);
    }
  }

  async function signInWithLocalToken() {
    setBusy(true);
    setError(null);
    const failure = await signInLocally();
    setBusy(false);
    if (failure) setError(failure.message);
  }

  const reason =
    state.status === "signed-out" && state.reason ? "Your saved token is no longer valid." : null;
  const unreachable = state.status === "unreachable" ? state.error.message : null;

  return (
    <main className="centered-page">
      <form className="panel narrow sign-in" onSubmit={submit} aria-labelledby={`${fieldId}-title`}>
        <div className="sign-in-head">
          <span className="brand-mark large" aria-hidden>
            P
          </span>
          <h1 id={`${fieldId}-title`}>Sign in to Parley</h1>
          <p className="muted">Paste your access token. An operator creates one with</p>
          <pre className="code-block command">npm run parley -- token create --user NAME</pre>
        </div>
        <label htmlFor={fieldId} className="field-label">
          Access token
        </label>
        <div className="input-with-icon">
          <KeyRound size={16} aria-hidden />
          <input
            id={fieldId}
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={token}
            onChange={(event) => setToken(event.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error || reason || unreachable ? errorId : undefined}
          />
        </div>
        {error || reason || unreachable ? (
          <p id={errorId} className="field-error" role="alert">
            {error ?? reason ?? `Can't reach the API at ${apiUrl}: ${unreachable}`}
          </p>
        ) : null}
        <button type="submit" className="button primary block" disabled={busy || !token.trim()}>
          {busy ? "Checking…" : "Sign in"}
        </button>
        {hasLocalSignIn ? (
          <button type="button" className="button block" disabled={busy} onClick={signInWithLocalToken}>
            Sign in with this server's local admin token
          </button>
        ) : null}
      </form>
    </main>
  );
}
