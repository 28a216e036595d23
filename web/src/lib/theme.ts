import { useEffect, useState } from 'react';

/** Light, dark, or the system's choice (prefers-color-scheme). Kept in localStorage, applied as <html data-theme>. */
export type ThemeChoice = 'auto' | 'light' | 'dark';

const KEY = 'nodepool-ledger.theme';

function readTheme(): ThemeChoice {
  try {
    const v = window.localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'auto';
  } catch {
    return 'auto'; // storage blocked (privacy mode): follow the system
  }
}

export function applyTheme(choice: ThemeChoice): void {
  if (choice === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
}

/** Applies the stored choice before the first render, so the page does not flash the other theme. */
export const applyStoredTheme = (): void => applyTheme(readTheme());

export function useTheme(): [ThemeChoice, (choice: ThemeChoice) => void] {
  const [theme, setTheme] = useState<ThemeChoice>(readTheme);
  useEffect(() => {
    applyTheme(theme);
    try {
      if (theme === 'auto') window.localStorage.removeItem(KEY);
      else window.localStorage.setItem(KEY, theme);
    } catch {
      // not persisted; the choice still holds for this page
    }
  }, [theme]);
  return [theme, setTheme];
}
