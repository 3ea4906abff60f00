import { ArgumentMetadata, BadRequestException, ValidationPipe } from '@nestjs/common';
import * as classTransformer from 'class-transformer';
import { Expose, plainToInstance } from 'class-transformer';
import { getMetadataStorage, validate, ValidatorOptions } from 'class-validator';
import { bodyInstanceOf, NOT_BUILT } from '../../../http/body-instances';
import { passesEveryRule } from '../../../http/body-rules';
import { checkoutValidationPipe, fieldProblems } from '../../../http/validation';
import {
  CreateCheckoutDto,
  CreateMobileMoneyCheckoutDto,
  CustomerDto,
} from './create-checkout.dto';
// Every DTO of the api, so that their rules are in class-validator's storage.
import '../../../index';

/** The options the api's pipe validates with (Nest's ValidationPipe sets forbidUnknownValues). */
const PIPE_OPTIONS: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: false,
  validationError: { target: false, value: false },
};
/** class-validator's own default: an object of a class without rules is refused. */
const REFUSING_UNKNOWN: ValidatorOptions = { ...PIPE_OPTIONS, forbidUnknownValues: true };

const HOSTED = {
  amount: '1500.00',
  currency: 'KES',
  description: 'Two bags of coffee',
  reference: 'ORDER-2041',
  customer: {
    email: 'amina@example.com',
    phone: '0712 345 678',
    country_code: 'ke',
    first_name: 'Amina',
    line_1: 'Moi Avenue 12',
  },
  return_url: 'https://shop.example/thank-you',
  cancel_url: 'https://shop.example/cart',
  branch: 'Nairobi CBD',
  redirect_mode: 'TOP_WINDOW',
  subscription: {
    account_number: 'SUB-0001',
    start_date: '2099-01-01',
    end_date: '2099-12-31',
    frequency: 'monthly',
  },
};

const MOBILE = {
  amount: 250,
  currency: 'KES',
  description: 'Airtime',
  customer: { email: 'amina@example.com' },
  phone: '0712 345 678',
  network: 'mpesa',
};

/** Each checkout body class with a valid body of it: every corpus starts from one. */
const CHECKOUTS: [string, new () => object, object][] = [
  ['a hosted checkout', CreateCheckoutDto, HOSTED],
  ['a mobile-money checkout', CreateMobileMoneyCheckoutDto, MOBILE],
];

/** Values a field is set to, one at a time: types, bounds and shapes the rules tell apart. */
const REPLACEMENTS: unknown[] = [
  undefined,
  null,
  '',
  ' ',
  'x',
  'x'.repeat(101),
  'x'.repeat(2100),
  0,
  -1,
  12.345,
  1e21,
  true,
  {},
  [],
  ['a'],
  { email: 'a@b.co' },
  '2000-01-01',
  '2099-13-45',
  'https://x.example',
  'KES',
  'usd',
  'MPESA',
  'TOP_WINDOW',
  '0.00',
  '+254712345678',
  'not an email',
];

/** The body with the value at `path` replaced (or removed, for undefined). */
function replaced(body: object, path: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(body) as Record<string, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) {
    if (typeof at[key] !== 'object' || at[key] === null) at[key] = {};
    at = at[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1];
  if (value === undefined) delete at[last];
  else at[last] = value;
  return copy;
}

function pathsOf(body: object, prefix: string[] = []): string[][] {
  return Object.entries(body).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? [[...prefix, key], ...pathsOf(value as object, [...prefix, key])]
      : [[...prefix, key]],
  );
}

/** Every body of the corpus: each field of a valid body replaced by each value, and unknown fields. */
function corpus(valid: object): Record<string, unknown>[] {
  const bodies: Record<string, unknown>[] = [structuredClone(valid) as Record<string, unknown>];
  for (const path of pathsOf(valid)) {
    for (const value of REPLACEMENTS) bodies.push(replaced(valid, path, value));
    bodies.push(replaced(valid, [...path.slice(0, -1), 'unknown_field'], 'x'));
  }
  bodies.push({}, replaced(valid, ['customer'], { phone: '+254712345678' }));
  return bodies;
}

async function classValidatorPasses(entity: object, options = PIPE_OPTIONS): Promise<boolean> {
  return (await validate(entity, options)).length === 0;
}

describe('passesEveryRule', () => {
  it.each(CHECKOUTS)(
    'answers what class-validator answers for every variant of %s',
    async (_name, dto, valid) => {
      const verdicts = { passed: 0, failed: 0 };
      for (const body of corpus(valid)) {
        for (const options of [PIPE_OPTIONS, REFUSING_UNKNOWN]) {
          const entity = plainToInstance(dto, body);
          const expected = await classValidatorPasses(entity, options);
          // Asked of an entity class-validator has not seen: the verdict is its own.
          const fresh = plainToInstance(dto, body);
          const verdict = passesEveryRule(fresh, options);
          if (verdict !== expected) {
            throw new Error(
              `${JSON.stringify(body)}: class-validator ${expected}, passesEveryRule ${verdict}`,
            );
          }
          verdicts[expected ? 'passed' : 'failed'] += 1;
        }
      }
      // The corpus tells both verdicts apart: many bodies fail, and more than the valid one pass.
      expect(verdicts.passed).toBeGreaterThan(5);
      expect(verdicts.failed).toBeGreaterThan(50);
    },
  );

  it("answers what class-validator answers for every class's empty and mistyped objects", async () => {
    const storage = getMetadataStorage() as unknown as {
      validationMetadatas: Map<unknown, unknown>;
    };
    const classes = [...storage.validationMetadatas.keys()].filter(
      (key): key is new () => object => typeof key === 'function',
    );
    expect(classes.length).toBeGreaterThan(20);
    const bodies = [{}, { unknown_field: 1 }, { reference: 5, amount: [] }, { customer: {} }];
    for (const dto of [...classes, Object]) {
      for (const body of bodies) {
        for (const options of [PIPE_OPTIONS, REFUSING_UNKNOWN]) {
          const expected = await classValidatorPasses(plainToInstance(dto, body), options);
          const verdict = passesEveryRule(plainToInstance(dto, body), options);
          if (verdict !== undefined && verdict !== expected) {
            throw new Error(`${dto.name} ${JSON.stringify(body)}: ${expected} vs ${verdict}`);
          }
        }
      }
    }
  });

  it('refuses an object of a class without rules (when told to), and a property without any', () => {
    class Unruled {
      note?: string;
    }
    expect(passesEveryRule(new Unruled(), REFUSING_UNKNOWN)).toBe(false);
    expect(passesEveryRule(new Unruled(), PIPE_OPTIONS)).toBe(true);
    expect(passesEveryRule(Object.assign(new Unruled(), { note: 'x' }), PIPE_OPTIONS)).toBe(false);
    const checkout = plainToInstance(CreateCheckoutDto, { ...HOSTED, note: 'x' });
    expect(passesEveryRule(checkout, PIPE_OPTIONS)).toBe(false);
  });

  it('leaves options it does not follow to class-validator', () => {
    const checkout = plainToInstance(CreateCheckoutDto, HOSTED);
    expect(passesEveryRule(checkout, PIPE_OPTIONS)).toBe(true);
    expect(passesEveryRule(checkout, { ...PIPE_OPTIONS, groups: ['x'] })).toBeUndefined();
    expect(passesEveryRule(checkout, { whitelist: true })).toBeUndefined();
    expect(passesEveryRule(checkout, { skipMissingProperties: true })).toBeUndefined();
  });
});

describe('the api pipe with passesEveryRule', () => {
  const pipe = checkoutValidationPipe();
  const body: ArgumentMetadata = { type: 'body', metatype: CreateCheckoutDto };

  it('looks no rule up for a valid checkout once its class has been seen', async () => {
    await pipe.transform(structuredClone(HOSTED), body);
    const storage = getMetadataStorage();
    const lookups = jest.spyOn(storage, 'getTargetValidationMetadatas');
    try {
      const dto = (await pipe.transform(structuredClone(HOSTED), body)) as CreateCheckoutDto;
      expect(dto).toBeInstanceOf(CreateCheckoutDto);
      expect(dto.currency).toBe('KES');
      expect(dto.subscription?.frequency).toBe('MONTHLY');
      expect(lookups).not.toHaveBeenCalled();
    } finally {
      lookups.mockRestore();
    }
  });

  it('still names every failing field with its reason', async () => {
    const invalid = { ...structuredClone(HOSTED), amount: '-1', note: 'x' };
    const refused = await pipe.transform(invalid, body).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(BadRequestException);
    expect((refused as BadRequestException).getResponse()).toEqual({
      errors: expect.arrayContaining([
        { field: 'note', reason: 'property note should not exist' },
        { field: 'amount', reason: 'must be a positive amount with at most 2 decimals' },
      ]),
    });
  });
});

describe('bodyInstanceOf', () => {
  it.each(CHECKOUTS)(
    'builds what class-transformer builds for every variant of %s it builds',
    (_name, dto, valid) => {
      let built = 0;
      for (const body of corpus(valid)) {
        const instance = bodyInstanceOf(dto, structuredClone(body));
        if (instance === NOT_BUILT) continue;
        built += 1;
        // toStrictEqual tells classes apart, nested ones too, and undefined from absent.
        expect(instance).toStrictEqual(plainToInstance(dto, structuredClone(body)));
      }
      expect(built).toBeGreaterThan(50);
    },
  );

  it('leaves to class-transformer what it does not follow', () => {
    class Renamed {
      @Expose({ name: 'full_name' })
      name?: string;
    }
    expect(bodyInstanceOf(Renamed, { full_name: 'x' })).toBe(NOT_BUILT);
    const hosted = structuredClone(HOSTED);
    for (const body of [
      { ...hosted, unknown_field: 'x' },
      { ...hosted, toString: 'x' },
      { ...hosted, description: ['x'] },
      { ...hosted, customer: new Date() },
      { ...hosted, customer: Object.create(null) as object },
      { ...hosted, amount: { value: 1 } },
    ]) {
      expect(bodyInstanceOf(CreateCheckoutDto, body)).toBe(NOT_BUILT);
    }
    expect(bodyInstanceOf(CreateCheckoutDto, ['x'])).toBe(NOT_BUILT);
    expect(bodyInstanceOf(Object, {})).toBe(NOT_BUILT);
    expect(bodyInstanceOf(undefined, hosted)).toBe(NOT_BUILT);
    expect(bodyInstanceOf(CustomerDto, { email: 'a@b.co' })).toBeInstanceOf(CustomerDto);
  });
});

describe('the api pipe against Nest’s own', () => {
  const body = (metatype: new () => object): ArgumentMetadata => ({ type: 'body', metatype });
  const nests = new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new BadRequestException({ errors: fieldProblems(errors) }),
  });
  const outcome = (pipe: ValidationPipe, value: unknown, metadata: ArgumentMetadata) =>
    pipe.transform(value, metadata).then(
      (entity: unknown) => ({ entity }),
      (error: unknown) => ({ refused: (error as BadRequestException).getResponse() }),
    );

  it.each(CHECKOUTS)(
    'answers every variant of %s as Nest’s ValidationPipe does',
    async (_name, dto, valid) => {
      const pipe = checkoutValidationPipe();
      for (const variant of corpus(valid)) {
        const ours = await outcome(pipe, structuredClone(variant), body(dto));
        const theirs = await outcome(nests, structuredClone(variant), body(dto));
        expect(ours).toStrictEqual(theirs);
      }
    },
  );

  it('builds a valid checkout without class-transformer, and an invalid one with it', async () => {
    const pipe = checkoutValidationPipe();
    const transforms = jest.spyOn(classTransformer, 'plainToInstance');
    try {
      const dto = await pipe.transform(structuredClone(HOSTED), body(CreateCheckoutDto));
      expect(dto).toBeInstanceOf(CreateCheckoutDto);
      expect(transforms).not.toHaveBeenCalled();
      await expect(
        pipe.transform({ ...structuredClone(HOSTED), amount: '-1' }, body(CreateCheckoutDto)),
      ).rejects.toBeInstanceOf(BadRequestException);
      expect(transforms).toHaveBeenCalledTimes(1);
    } finally {
      transforms.mockRestore();
    }
  });
});
