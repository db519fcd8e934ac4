export { CancelAllOrders } from './CancelAllOrders';
export { OpenOrdersTable } from './OpenOrdersTable';
export type { OrderRow } from './order-actions';
export { afterAmend } from './order-actions';
