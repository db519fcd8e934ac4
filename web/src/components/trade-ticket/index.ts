export { TradeTicket } from './TradeTicket';
