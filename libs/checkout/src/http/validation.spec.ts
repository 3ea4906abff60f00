import { ValidationError } from 'class-validator';
import { fieldProblems, nulCharacterAt } from './validation';

function error(
  property: string,
  constraints: Record<string, string>,
  children: ValidationError[] = [],
) {
  return Object.assign(new ValidationError(), { property, constraints, children });
}

describe('fieldProblems', () => {
  it('names nested fields with dots and drops the property from the start of the reason', () => {
    expect(
      fieldProblems([
        error('customer', {}, [error('email', { isEmail: 'email must be an email address' })]),
      ]),
    ).toEqual([{ field: 'customer.email', reason: 'must be an email address' }]);
  });

  it('takes property names that are not identifiers (regex characters, empty) as text', () => {
    expect(
      fieldProblems([
        error('$yJ(;>', { whitelistValidation: 'property $yJ(;> should not exist' }),
        error('', { whitelistValidation: 'property  should not exist' }),
        error('a.*', { isString: 'a.* must be a string' }),
      ]),
    ).toEqual([
      { field: '$yJ(;>', reason: 'property $yJ(;> should not exist' },
      { field: '""', reason: 'property  should not exist' },
      { field: 'a.*', reason: 'must be a string' },
    ]);
  });

  it('finds a NUL character in any nested string or key, by its field', () => {
    expect(nulCharacterAt({ customer: { first_name: 'A\u0000' } }, '')).toBe('customer.first_name');
    expect(nulCharacterAt({ items: ['ok', 'b\u0000'] }, '')).toBe('items.1');
    expect(nulCharacterAt({ ['k\u0000']: 1 }, '')).toBe('k\u0000');
    expect(nulCharacterAt('ORD\u00001', 'reference')).toBe('reference');
    expect(nulCharacterAt({ amount: '10.00', note: 'fine' }, '')).toBeNull();
  });
});
