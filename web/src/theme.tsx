import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { apiClient, typed } from './api/client';
import { useSessionToken } from './lib/hooks';
import { apiKey, queryClient } from './lib/query';

export type Theme = 'light' | 'dark';

const THEME_KEY = 'pmx.theme';

export function initialTheme(): Theme {
  try {
    const saved = localStorage.getItem(THEME_KEY);
    if (saved === 'light' || saved === 'dark') return saved;
  } catch {
    // Storage unavailable: fall back to the system setting.
  }
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
}

interface ThemeState {
  theme: Theme;
  /** Switch theme; a signed-in user's choice is saved in their preferences and follows them to other devices. */
  setTheme(theme: Theme): Promise<void>;
}

const ThemeContext = createContext<ThemeState | null>(null);

export function ThemeProvider({ children }: { children: ReactNode }) {
  const [theme, setLocal] = useState<Theme>(initialTheme);
  const token = useSessionToken();

  const remember = useCallback((next: Theme) => {
    setLocal(next);
    applyTheme(next);
    try {
      localStorage.setItem(THEME_KEY, next);
    } catch {
      // The theme then lasts for this page only.
    }
  }, []);

  // Counts the user's own switches, so a preference read that was already on its way cannot undo one.
  const switches = useRef(0);

  // A sign-in brings the account's saved theme into this browser; afterwards the browser remembers it, so an
  // ordinary page load costs no read of the preferences.
  const signedInWith = useRef(token);
  useEffect(() => {
    if (!token || token === signedInWith.current) return;
    signedInWith.current = token;
    const before = switches.current;
    queryClient
      .fetchQuery({
        queryKey: apiKey('/api/me/preferences'),
        queryFn: ({ signal }) => typed(apiClient.GET('/api/me/preferences', { signal })),
      })
      .then((preferences) => {
        if (switches.current === before) remember(preferences.darkMode ? 'dark' : 'light');
      })
      .catch(() => {
        // Preferences unavailable: keep the theme this browser already shows.
      });
  }, [token, remember]);

  const setTheme = useCallback(
    async (next: Theme) => {
      switches.current += 1;
      remember(next);
      if (token) {
        await typed(apiClient.PATCH('/api/me/preferences', { body: { darkMode: next === 'dark' } }));
      }
    },
    [token, remember],
  );

  const value = useMemo(() => ({ theme, setTheme }), [theme, setTheme]);
  return <ThemeContext.Provider value={value}>{children}</ThemeContext.Provider>;
}

export function useTheme(): ThemeState {
  const state = useContext(ThemeContext);
  if (!state) throw new Error('useTheme needs a ThemeProvider');
  return state;
}
