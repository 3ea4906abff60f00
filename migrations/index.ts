import { MigrationInterface } from 'typeorm';
import { Init1763800000000 } from './1763800000000-Init';

/** Every migration, oldest first. A new migration is added here as well as in this folder. */
export const ALL_MIGRATIONS: (new () => MigrationInterface)[] = [Init1763800000000];
