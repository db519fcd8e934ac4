export { Conversions } from './Conversions';
