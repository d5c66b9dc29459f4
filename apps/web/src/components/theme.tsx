"use client";

import { Monitor, Moon, Sun } from "lucide-react";
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react";

export type ThemeChoice = "system" | "light" | "dark";

const THEME_KEY = "parley.theme";

/**
 * Runs before the first paint (inlined in the layout), so a stored choice never flashes the other
 * theme. "system" leaves `data-theme` unset and the CSS follows `prefers-color-scheme`.
 */
export const THEME_BOOT_SCRIPT = `try{var t=localStorage.getItem("${THEME_KEY}");if(t==="light"||t==="dark")document.documentElement.dataset.theme=t}catch(e){}`;

const ThemeContext = createContext<{ choice: ThemeChoice; setChoice(choice: ThemeChoice): void }>({
  choice: "system",
  setChoice: () => undefined,
});

export function ThemeProvider({ children }: { children: ReactNode }) {
  const [choice, setChoiceState] = useState<ThemeChoice>("system");
  useEffect(() => {
    const stored = window.localStorage.getItem(THEME_KEY);
    if (stored === "light" || stored === "dark") setChoiceState(stored);
  }, []);
  const setChoice = useCallback((next: ThemeChoice) => {
    setChoiceState(next);
    if (next === "system") {
      window.localStorage.removeItem(THEME_KEY);
      delete document.documentElement.dataset.theme;
    } else {
      window.localStorage.setItem(THEME_KEY, next);
      document.documentElement.dataset.theme = next;
    }
  }, []);
  const value = useMemo(() => ({ choice, setChoice }), [choice, setChoice]);
  return <ThemeContext.Provider value={value}>{children}</ThemeContext.Provider>;
}

const order: ThemeChoice[] = ["system", "light", "dark"];
const labels: Record<ThemeChoice, string> = {
  system: "Theme: follows the system",
  light: "Theme: light",
  dark: "Theme: dark",
};

/** Cycles system → light → dark. */
export function ThemeToggle() {
  const { choice, setChoice } = useContext(ThemeContext);
  const Icon = choice === "dark" ? Moon : choice === "light" ? Sun : Monitor;
  const next = order[(order.indexOf(choice) + 1) % order.length] ?? "system";
  return (
    <button
      type="button"
      className="button ghost icon-only"
      onClick={() => setChoice(next)}
      aria-label={`${labels[choice]} (switch to ${next})`}
      title={labels[choice]}
      data-testid="theme-toggle"
    >
      <Icon size={16} aria-hidden />
    </button>
  );
}
