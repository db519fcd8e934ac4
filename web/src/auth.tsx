import { useQuery } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo } from 'react';
import { apiClient, sessionToken, typed } from './api/client';
import type { Me, Registration, Session } from './api/types';
import { useSessionToken } from './lib/hooks';
import { apiKey, queryClient } from './lib/query';

export interface RegisterInput {
  email: string;
  password: string;
  username?: string;
  referralCode?: string;
  inviteCode?: string;
}

interface AuthState {
  /** The signed-in user with balances; null when signed out, undefined while loading. */
  me: Me | null | undefined;
  signedIn: boolean;
  login(email: string, password: string): Promise<Session>;
  register(input: RegisterInput): Promise<Registration>;
  logout(): Promise<void>;
  /** Re-read the user and balances. */
  refresh(): void;
}

const AuthContext = createContext<AuthState | null>(null);

/** The signed-in user and balance, one read shared by the whole app. */
export const ME_KEY = apiKey('/api/auth/me');

/** Sets the balance the header and the ticket show, from a fresher read (the portfolio's summary). */
export function setBalance(balance: Me['balance']): void {
  queryClient.setQueryData<Me>(ME_KEY, (me) => (me ? { ...me, balance } : me));
}

// Another user's answers must never show: a new session (or none) starts with an empty cache.
sessionToken.subscribe(() => queryClient.clear());

/** Focus and visibility both fire when a person comes back; one fresh balance is enough. */
const REFOCUS_READ_MS = 5_000;

export function AuthProvider({ children }: { children: ReactNode }) {
  const token = useSessionToken();
  const query = useQuery({
    queryKey: ME_KEY,
    queryFn: ({ signal }) => typed(apiClient.GET('/api/auth/me', { signal })),
    enabled: token !== null,
    staleTime: 30_000,
  });
  const me: Me | null | undefined = token === null ? null : query.data;

  const login = useCallback(async (email: string, password: string) => {
    const session = await typed(apiClient.POST('/api/auth/login', { body: { email, password } }));
    sessionToken.set(session.token);
    return session;
  }, []);

  const register = useCallback(async (input: RegisterInput) => {
    const session = await typed(apiClient.POST('/api/auth/register', { body: input }));
    sessionToken.set(session.token);
    return session;
  }, []);

  const logout = useCallback(async () => {
    try {
      await typed(apiClient.POST('/api/auth/logout'));
    } finally {
      sessionToken.set(null);
    }
  }, []);

  const refresh = useCallback(() => void queryClient.invalidateQueries({ queryKey: ME_KEY }), []);

  // Back to a tab after a while: the balance may have moved in another tab or by a fill.
  useEffect(() => {
    if (token === null) return;
    let last = Date.now();
    const onVisible = () => {
      if (document.visibilityState !== 'visible' || Date.now() - last < REFOCUS_READ_MS) return;
      last = Date.now();
      refresh();
    };
    document.addEventListener('visibilitychange', onVisible);
    window.addEventListener('focus', onVisible);
    return () => {
      document.removeEventListener('visibilitychange', onVisible);
      window.removeEventListener('focus', onVisible);
    };
  }, [token, refresh]);

  const value = useMemo(
    () => ({ me, signedIn: token !== null, login, register, logout, refresh }),
    [me, token, login, register, logout, refresh],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (!state) throw new Error('useAuth needs an AuthProvider');
  return state;
}
