import { NavLink, Outlet } from 'react-router';
import { useAuth } from '../../auth';
import { Loading, SignInPrompt } from '../../components/Status';
import { NotFoundPage } from '../NotFound';

const SECTIONS = [
  { to: '/admin', label: 'Events', end: true },
  { to: '/admin/disputes', label: 'Disputes' },
  { to: '/admin/reports', label: 'Reports' },
  { to: '/admin/suggestions', label: 'Suggestions' },
  { to: '/admin/tournaments', label: 'Tournaments' },
  { to: '/admin/webhooks', label: 'Webhooks' },
  { to: '/admin/flags', label: 'Feature flags' },
  { to: '/admin/audit', label: 'Audit' },
  { to: '/admin/operators', label: 'Roles' },
  { to: '/admin/actions', label: 'Admin log' },
];

/**
 * The operators' console: shown only to admins (everyone else sees "Page not found"); the API refuses a
 * trader's key on every /api/admin operation whatever the page shows.
 */
export function AdminLayout() {
  const { me, signedIn } = useAuth();
  if (!signedIn) {
    return (
      <div className="page">
        <SignInPrompt what="use the operators' console" />
      </div>
    );
  }
  if (me === undefined) return <Loading />;
  if (me?.role !== 'admin') return <NotFoundPage />;
  return (
    <div className="page">
      <div className="page-head">
        <h1>Operators’ console</h1>
      </div>
      <nav className="console-nav" aria-label="Console">
        {SECTIONS.map((section) => (
          <NavLink key={section.to} to={section.to} end={section.end} className="console-link">
            {section.label}
          </NavLink>
        ))}
      </nav>
      <Outlet />
    </div>
  );
}

export function StatusPill({ status }: { status: string }) {
  return <span className={`status-pill ${status}`}>{status}</span>;
}

/**
 * A console queue's heading with its status filter: `statuses` in order, and `all` sending the value `allValue`.
 */
export function QueueHeading<S extends string>({
  id,
  title,
  status,
  statuses,
  allValue,
  onStatus,
}: {
  id: string;
  title: string;
  status: S;
  statuses: readonly S[];
  allValue: S;
  onStatus: (status: S) => void;
}) {
  return (
    <div className="section-head">
      <h2 id={`${id}-heading`}>{title}</h2>
      <div className="field inline">
        <label htmlFor={`${id}-status`}>Status</label>
        <select id={`${id}-status`} value={status} onChange={(e) => onStatus(e.target.value as S)}>
          {statuses.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
          <option value={allValue}>all</option>
        </select>
      </div>
    </div>
  );
}
