import { ServiceConfig } from '@app/config';
import { DataSource } from 'typeorm';
import { CheckoutError, FieldProblem } from '../../errors/checkout-error';
import { FinanceSnapshot } from './finance-snapshot';
import { FinanceRangeQuery } from './finance.dto';
import { readRange } from './report-range';

/**
 * Checks what every finance read shares (range, zone, currency; `extra` adds a read's own
 * problems), naming each bad field at once, then opens the snapshot the read runs in.
 */
export async function openFinanceSnapshot(
  dataSource: DataSource,
  config: ServiceConfig,
  query: FinanceRangeQuery,
  extra: FieldProblem[] = [],
): Promise<FinanceSnapshot> {
  const { range, problems } = readRange(query, config.reportTimeZone);
  if (query.currency !== undefined && !config.currencies.includes(query.currency.toUpperCase())) {
    problems.push({
      field: 'currency',
      reason: `must be one of the configured currencies (${config.currencies.join(', ')})`,
    });
  }
  const accounts = config.gateway.accounts.map((account) => account.id);
  if (query.account !== undefined && !accounts.includes(query.account)) {
    problems.push({
      field: 'account',
      reason: `must be one of the merchant accounts (${accounts.join(', ')})`,
    });
  }
  problems.push(...extra);
  if (problems.length > 0 || !range) throw CheckoutError.invalid(problems);
  return FinanceSnapshot.open(dataSource, range);
}
