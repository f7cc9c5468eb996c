export { Coordinator } from './coordinator';
export type { AppRouter } from './api/router';
