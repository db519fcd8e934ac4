import { type ReactNode, useEffect, useRef, useState } from 'react';
import { Link, NavLink, useLocation } from 'react-router';
import { rateLimitWait } from '../api/client';
import type { Me } from '../api/types';
import { useAuth } from '../auth';
import { feedInit, useAccountStream } from '../lib/account-live';
import { formatCredits } from '../lib/format';
import { useApi, usePagedApi } from '../lib/hooks';
import { useTheme } from '../theme';
import { BellIcon, MenuIcon, MoonIcon, SunIcon } from './Icons';
import { UnverifiedNotice } from './UnverifiedNotice';

const NAV = [
  { to: '/', label: 'Markets', end: true },
  { to: '/portfolio', label: 'Portfolio' },
  { to: '/watchlist', label: 'Watchlist' },
  { to: '/leaderboard', label: 'Leaderboard' },
  { to: '/tournaments', label: 'Tournaments' },
  { to: '/challenges', label: 'Challenges' },
  { to: '/progress', label: 'Progress' },
  { to: '/copy-trading', label: 'Copy trading' },
];

/** The bell's count: the feed's first page, shared with the notifications page and kept live by the stream. */
function useUnreadCount(signedIn: boolean): number {
  const feed = usePagedApi(signedIn ? '/api/me/notifications' : null, feedInit);
  const first = feed.pages[0] as { unreadCount?: number } | undefined;
  return first?.unreadCount ?? 0;
}

/** While a request waits out the rate limit, say so instead of leaving the page to look stuck. */
function RateLimitNotice() {
  const [until, setUntil] = useState(rateLimitWait.until);
  const [, tick] = useState(0);
  useEffect(() => rateLimitWait.subscribe(setUntil), []);
  useEffect(() => {
    if (until === null) return;
    const timer = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, [until]);
  if (until === null) return null;
  const seconds = Math.max(1, Math.ceil((until - Date.now()) / 1000));
  return (
    <p className="rate-notice" role="status" data-testid="rate-limit-notice">
      Many requests in a short time: the next ones go out in {seconds} s, by themselves.
    </p>
  );
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

/** The main sections, and the console for an operator; on a phone, a menu opened by its button. */
function PrimaryNav({ open, console }: { open: boolean; console: boolean }) {
  return (
    <nav id="primary-nav" aria-label="Main" className={open ? 'primary-nav open' : 'primary-nav'}>
      <ul>
        {NAV.map((item) => (
          <li key={item.to}>
            <NavLink to={item.to} end={item.end}>
              {item.label}
            </NavLink>
          </li>
        ))}
        {console ? (
          <li>
            <NavLink to="/admin">Console</NavLink>
          </li>
        ) : null}
      </ul>
    </nav>
  );
}

/** The signed-in trader's notifications (with the unread count) and account (with the cash available). */
function AccountLinks({ me, unread }: { me: Me | null | undefined; unread: number }) {
  return (
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
  );
}

function SignInLinks() {
  return (
    <>
      <NavLink to="/login" className="button ghost small">
        Log in
      </NavLink>
      <NavLink to="/register" className="button small">
        Sign up
      </NavLink>
    </>
  );
}

/** On a new page: the phone menu closes, the page starts at the top, and focus moves so readers announce it. */
function usePageChange(closeMenu: () => void) {
  const location = useLocation();
  const main = useRef<HTMLElement>(null);
  const firstPath = useRef(location.pathname);
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new path is a new page
  useEffect(() => {
    closeMenu();
    if (firstPath.current === location.pathname) return;
    firstPath.current = '';
    window.scrollTo(0, 0);
    main.current?.focus({ preventScroll: true });
  }, [location.pathname]);
  return { main, flash: (location.state as { flash?: string } | null)?.flash };
}

/** The notice for a signed-in trader whose address is not proven, while the server proves addresses. */
function AddressNotice() {
  const { me } = useAuth();
  const flags = useApi(me && !me.emailVerified ? '/api/flags' : null);
  if (!me || me.emailVerified || !flags.data?.addressesVerified) return null;
  return <UnverifiedNotice email={me.email} />;
}

export function Layout({ children }: { children: ReactNode }) {
  const { me, signedIn } = useAuth();
  const unread = useUnreadCount(signedIn);
  useAccountStream(signedIn);
  const [menuOpen, setMenuOpen] = useState(false);
  const { main, flash } = usePageChange(() => setMenuOpen(false));

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className={me?.role === 'admin' ? 'site-header with-console' : 'site-header'}>
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
          <PrimaryNav open={menuOpen} console={me?.role === 'admin'} />
          <div className="header-actions">
            <ThemeToggle />
            {signedIn ? <AccountLinks me={me} unread={unread} /> : <SignInLinks />}
          </div>
        </div>
      </header>
      <main id="main" tabIndex={-1} ref={main}>
        <RateLimitNotice />
        <AddressNotice />
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
