import request from 'supertest';
import { DataSource } from 'typeorm';
import { openTestDataSource } from './database';
import { SeedRows } from './seed-rows';
import { RunningService, ServiceOptions, startService } from './service';

/** The api on the run's database, and a connection of the test's own that seeds rows into it. */
export interface SeededApi {
  service: RunningService;
  dataSource: DataSource;
  seed: SeedRows;
  /** A GET with the admin key. */
  get(path: string): request.Test;
  close(): Promise<void>;
}

export async function startSeededApi(
  options: { poolSize?: number; service?: ServiceOptions } = {},
): Promise<SeededApi> {
  const service = await startService(options.service);
  let dataSource: DataSource;
  try {
    dataSource = await openTestDataSource(options.poolSize);
  } catch (error) {
    await service.close();
    throw error;
  }
  return {
    service,
    dataSource,
    seed: new SeedRows(dataSource),
    get: (path) => request(service.apiUrl).get(path).set(service.adminAuth),
    async close() {
      await dataSource.destroy();
      await service.close();
    },
  };
}
