import {
  getMetadataStorage,
  ValidationArguments,
  ValidationTypes,
  ValidatorOptions,
} from 'class-validator';

/** A class whose rules class-validator keeps. */
type RuledClass = abstract new (...args: never[]) => unknown;

/** One rule as class-validator registered it (its ValidationMetadata, of which we read these). */
interface RuleMetadata {
  type: string;
  propertyName: string;
  constraints: unknown[];
  constraintCls: RuledClass;
  each?: boolean;
}

/** What a rule's validator class registered (ConstraintMetadata): the instance that decides. */
interface RuleConstraint {
  instance: { validate(value: unknown, args: ValidationArguments): unknown };
}

/** One property's rules, sorted the way class-validator's executor sorts them. */
interface PropertyRules {
  name: string;
  /** @IsOptional and @ValidateIf: every one must say yes for the rest to run. */
  conditions: RuleMetadata[];
  /** @IsDefined: runs whatever the skip options say. */
  defined: CheckedRule[];
  custom: CheckedRule[];
  nested: RuleMetadata[];
  /** @ValidatePromise: a promise value is left to class-validator. */
  awaitsPromise: boolean;
}

interface CheckedRule {
  metadata: RuleMetadata;
  /** The validators' instances, taken once: class-validator asks its container at each call. */
  validators: RuleConstraint['instance'][];
}

interface ClassRules {
  /** Whether the class has any rule (class-validator refuses an object of a class without). */
  any: boolean;
  /** The properties with any rule at all: the others are not whitelisted. */
  known: Set<string>;
  properties: PropertyRules[];
}

interface MetadataStorageView {
  getTargetValidationMetadatas(
    target: RuledClass,
    schema: string | undefined,
    always: boolean,
    strictGroups: boolean,
    groups?: string[],
  ): RuleMetadata[];
  groupByPropertyName(metadatas: RuleMetadata[]): Record<string, RuleMetadata[]>;
  getTargetValidatorConstraints(target: RuledClass): RuleConstraint[];
}

/**
 * Each class's rules, read from class-validator's storage at their first use and kept: the rules
 * are decorators, all registered as their classes load, before the first request. Reading them
 * per request (as class-validator does: it filters every rule of every class, with inheritance)
 * was most of a checkout's validation.
 */
const rulesByClass = new Map<RuledClass, ClassRules>();

function rulesOf(target: RuledClass): ClassRules {
  let rules = rulesByClass.get(target);
  if (rules) return rules;
  const storage = getMetadataStorage() as unknown as MetadataStorageView;
  // The same call, with the same arguments, as class-validator's executor makes for these options.
  const metadatas = storage.getTargetValidationMetadatas(
    target,
    undefined,
    false,
    false,
    undefined,
  );
  const grouped = storage.groupByPropertyName(metadatas);
  const checked = (metadata: RuleMetadata): CheckedRule => ({
    metadata,
    validators: storage
      .getTargetValidatorConstraints(metadata.constraintCls)
      .map((constraint) => constraint.instance),
  });
  const properties = Object.keys(grouped).map((name): PropertyRules => {
    const all = grouped[name];
    const rest = all.filter(
      ({ type }) => type !== ValidationTypes.IS_DEFINED && type !== ValidationTypes.WHITELIST,
    );
    return {
      name,
      conditions: rest.filter(({ type }) => type === ValidationTypes.CONDITIONAL_VALIDATION),
      defined: all.filter(({ type }) => type === ValidationTypes.IS_DEFINED).map(checked),
      custom: rest.filter(({ type }) => type === ValidationTypes.CUSTOM_VALIDATION).map(checked),
      nested: rest.filter(({ type }) => type === ValidationTypes.NESTED_VALIDATION),
      awaitsPromise: rest.some(({ type }) => type === ValidationTypes.PROMISE_VALIDATION),
    };
  });
  rules = {
    any: metadatas.length > 0,
    // Every grouped property has at least one rule.
    known: new Set(Object.keys(grouped)),
    properties,
  };
  rulesByClass.set(target, rules);
  return rules;
}

/** The properties `target` has class-validator rules for, or null when it has none at all. */
export function ruledProperties(target: RuledClass): ReadonlySet<string> | null {
  const rules = rulesOf(target);
  return rules.any ? rules.known : null;
}

/** Not decided here: class-validator itself has to say (a promise, an array to validate each of). */
const UNDECIDED = undefined;
type Verdict = boolean | typeof UNDECIDED;

/**
 * Whether `object` passes every class-validator rule of its class (and of the nested objects it
 * validates), as `validate(object, options)` would find: true only when class-validator would
 * answer no error at all, false when it would answer one, undefined when only class-validator
 * can say (a promise to wait for, values validated each, options this does not follow). It runs
 * the same validators with the same arguments, in the executor's order, without looking the
 * rules up again or building an error per property. Which error and which message is left to
 * class-validator: a caller validates again with it whenever this does not answer true.
 */
export function passesEveryRule(object: object, options: ValidatorOptions): Verdict {
  if (!followed(options)) return UNDECIDED;
  return objectPasses(object as Record<string, unknown>, options.forbidUnknownValues !== false);
}

/** The options whose verdict this follows: no groups and no skipping. */
function followed(options: ValidatorOptions): boolean {
  return (
    !options.groups?.length &&
    !options.always &&
    !options.strictGroups &&
    !options.skipMissingProperties &&
    !options.skipNullProperties &&
    !options.skipUndefinedProperties &&
    // Whitelisting without forbidding deletes properties: class-validator's to do.
    (!options.whitelist || options.forbidNonWhitelisted === true)
  );
}

function objectPasses(object: Record<string, unknown>, forbidUnknownValues: boolean): Verdict {
  const target = object.constructor;
  if (typeof target !== 'function') return UNDECIDED;
  const rules = rulesOf(target as RuledClass);
  // forbidUnknownValues: an object of a class without rules is an error (and nothing else is
  // checked of it).
  if (!rules.any && forbidUnknownValues) return false;
  // whitelist with forbidNonWhitelisted: a property without rules is an error.
  for (const key of Object.keys(object)) if (!rules.known.has(key)) return false;
  let verdict: Verdict = true;
  for (const property of rules.properties) {
    const passes = propertyPasses(object, property, forbidUnknownValues);
    if (passes === false) return false;
    if (passes === UNDECIDED) verdict = UNDECIDED;
  }
  return verdict;
}

function propertyPasses(
  object: Record<string, unknown>,
  property: PropertyRules,
  forbidUnknownValues: boolean,
): Verdict {
  const value = object[property.name];
  if (value instanceof Promise && property.awaitsPromise) return UNDECIDED;
  let applies = true;
  // Every condition is asked, as class-validator asks them (no short cut).
  for (const condition of property.conditions) {
    const met = (condition.constraints[0] as (object: object, value: unknown) => boolean)(
      object,
      value,
    );
    applies = applies && met;
  }
  if (!applies) return true;
  let verdict = rulesPass(object, value, property.defined);
  if (verdict === false) return false;
  const custom = rulesPass(object, value, property.custom);
  if (custom === false) return false;
  if (custom === UNDECIDED) verdict = UNDECIDED;
  if (value === undefined) return verdict;
  for (const _nested of property.nested) {
    if (Array.isArray(value) || value instanceof Set || value instanceof Map) return UNDECIDED;
    if (!(value instanceof Object)) return false;
    const inner = objectPasses(value as Record<string, unknown>, forbidUnknownValues);
    if (inner === false) return false;
    if (inner === UNDECIDED) verdict = UNDECIDED;
  }
  return verdict;
}

function rulesPass(object: Record<string, unknown>, value: unknown, rules: CheckedRule[]): Verdict {
  let verdict: Verdict = true;
  for (const { metadata, validators } of rules) {
    if (metadata.each && (Array.isArray(value) || value instanceof Set || value instanceof Map)) {
      return UNDECIDED;
    }
    for (const validator of validators) {
      const args: ValidationArguments = {
        targetName: object.constructor ? object.constructor.name : (undefined as unknown as string),
        property: metadata.propertyName,
        object,
        value,
        constraints: metadata.constraints,
      };
      const valid = validator.validate(value, args);
      if (isPromiseLike(valid)) {
        // class-validator runs it again and waits for it; this one's outcome is not wanted.
        (valid as PromiseLike<unknown>).then(undefined, () => undefined);
        verdict = UNDECIDED;
      } else if (!valid) return false;
    }
  }
  return verdict;
}

function isPromiseLike(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
