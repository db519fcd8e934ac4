import { Route, Routes } from 'react-router';
import { NotFoundPage } from '../NotFound';
import { AdminActionsPage } from './Actions';
import { AdminLayout } from './AdminLayout';
import { AdminDisputesPage } from './Disputes';
import { AdminEventPage } from './EventDetail';
import { AdminEventsPage } from './Events';
import { AdminReportsPage, AdminSuggestionsPage } from './Moderation';
import { AdminOperatorsPage } from './Operators';
import { AdminAuditPage, AdminFlagsPage, AdminTournamentsPage } from './System';
import { AdminWebhooksPage } from './Webhooks';

/** The operators' console with its sections: loaded only when an operator opens it. */
export default function AdminConsole() {
  return (
    <Routes>
      <Route element={<AdminLayout />}>
        <Route index element={<AdminEventsPage />} />
        <Route path="events/:id" element={<AdminEventPage />} />
        <Route path="disputes" element={<AdminDisputesPage />} />
        <Route path="reports" element={<AdminReportsPage />} />
        <Route path="suggestions" element={<AdminSuggestionsPage />} />
        <Route path="tournaments" element={<AdminTournamentsPage />} />
        <Route path="webhooks" element={<AdminWebhooksPage />} />
        <Route path="flags" element={<AdminFlagsPage />} />
        <Route path="audit" element={<AdminAuditPage />} />
        <Route path="operators" element={<AdminOperatorsPage />} />
        <Route path="actions" element={<AdminActionsPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
