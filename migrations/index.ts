import { Init1763800000000 } from './1763800000000-Init';

/** Every migration, oldest first. A new migration is added here as well as in this folder. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const ALL_MIGRATIONS: Function[] = [Init1763800000000];
