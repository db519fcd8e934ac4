import { type ReactNode, useEffect, useRef, useState } from 'react';
import { Link, NavLink, useLocation } from 'react-router';
import { apiClient, typed } from '../api/client';
import { useAuth } from '../auth';
import { formatCredits } from '../lib/format';
import { useTheme } from '../theme';
import { BellIcon, MenuIcon, MoonIcon, SunIcon } from './Icons';

export const NOTIFICATIONS_CHANGED = 'pmx:notifications-changed';
const UNREAD_POLL_MS = 60_000;

const NAV = [
  { to: '/', label: 'Markets', end: true },
  { to: '/portfolio', label: 'Portfolio' },
  { to: '/leaderboard', label: 'Leaderboard' },
  { to: '/tournaments', label: 'Tournaments' },
  { to: '/challenges', label: 'Challenges' },
  { to: '/progress', label: 'Progress' },
  { to: '/copy-trading', label: 'Copy trading' },
];

function useUnreadCount(signedIn: boolean): number {
  const [count, setCount] = useState(0);
  useEffect(() => {
    if (!signedIn) {
      setCount(0);
      return;
    }
    let active = true;
    const load = () =>
      typed(apiClient.GET('/api/me/notifications', { params: { query: { limit: 1 } } }))
        .then((feed) => active && setCount(feed.unreadCount))
        .catch(() => {
          // The badge is a hint; the notifications page reports failures.
        });
    load();
    const timer = setInterval(load, UNREAD_POLL_MS);
    window.addEventListener(NOTIFICATIONS_CHANGED, load);
    return () => {
      active = false;
      clearInterval(timer);
      window.removeEventListener(NOTIFICATIONS_CHANGED, load);
    };
  }, [signedIn]);
  return count;
}

export function ThemeToggle() {
  const { theme, setTheme } = useTheme();
  const dark = theme === 'dark';
  return (
    <button
      type="button"
      className="icon-button"
      aria-pressed={dark}
      onClick={() => {
        setTheme(dark ? 'light' : 'dark').catch(() => {
          // Saving the preference failed; the theme still changed in this browser.
        });
      }}
    >
      {dark ? <MoonIcon /> : <SunIcon />}
      <span className="visually-hidden">Dark mode</span>
    </button>
  );
}

export function Layout({ children }: { children: ReactNode }) {
  const { me, signedIn } = useAuth();
  const unread = useUnreadCount(signedIn);
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();

  const main = useRef<HTMLElement>(null);
  const firstPath = useRef(location.pathname);
  const flash = (location.state as { flash?: string } | null)?.flash;

  // A new page: close the phone menu, start at the top, and move focus so screen readers announce it.
  useEffect(() => {
    setMenuOpen(false);
    if (firstPath.current === location.pathname) return;
    firstPath.current = '';
    window.scrollTo(0, 0);
    main.current?.focus({ preventScroll: true });
  }, [location.pathname]);

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <div className="header-inner">
          <Link to="/" className="brand">
            <img src="/favicon.svg" alt="" width={28} height={28} />
            <span>Predict</span>
          </Link>
          <button
            type="button"
            className="icon-button menu-button"
            aria-expanded={menuOpen}
            aria-controls="primary-nav"
            onClick={() => setMenuOpen((open) => !open)}
          >
            <MenuIcon />
            <span className="visually-hidden">Menu</span>
          </button>
          <nav id="primary-nav" aria-label="Main" className={menuOpen ? 'primary-nav open' : 'primary-nav'}>
            <ul>
              {NAV.map((item) => (
                <li key={item.to}>
                  <NavLink to={item.to} end={item.end}>
                    {item.label}
                  </NavLink>
                </li>
              ))}
              {me?.role === 'admin' ? (
                <li>
                  <NavLink to="/admin">Console</NavLink>
                </li>
              ) : null}
            </ul>
          </nav>
          <div className="header-actions">
            <ThemeToggle />
            {signedIn ? (
              <>
                <NavLink to="/notifications" className="icon-button notif-link">
                  <BellIcon />
                  <span className="visually-hidden">Notifications</span>
                  {unread > 0 ? (
                    <span className="count-badge">
                      {unread > 99 ? '99+' : unread}
                      <span className="visually-hidden"> unread</span>
                    </span>
                  ) : null}
                </NavLink>
                <NavLink to="/account" className="account-link">
                  <span className="account-name">{me?.username ?? 'Account'}</span>
                  {me ? (
                    <span className="balance" data-testid="header-balance">
                      {formatCredits(me.balance.cashCents)}
                    </span>
                  ) : null}
                </NavLink>
              </>
            ) : (
              <>
                <NavLink to="/login" className="button ghost small">
                  Log in
                </NavLink>
                <NavLink to="/register" className="button small">
                  Sign up
                </NavLink>
              </>
            )}
          </div>
        </div>
      </header>
      <main id="main" tabIndex={-1} ref={main}>
        {flash ? (
          <p className="flash" role="status">
            {flash}
          </p>
        ) : null}
        {children}
      </main>
      <footer className="site-footer">
        <p>
          Play money before launch: prices are cents per share, and every winning share pays 100¢.{' '}
          <a href="/docs">API documentation</a>
        </p>
      </footer>
    </>
  );
}
