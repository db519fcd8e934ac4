import pmx from './pmx.js';

export { EXCEPTIONS } from './base.js';
export { pmx };
export default pmx;
