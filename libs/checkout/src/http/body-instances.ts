import { TransformationType } from 'class-transformer';
import type { ClassTransformOptions, TransformFnParams, TypeHelpOptions } from 'class-transformer';
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage';
import { ruledProperties } from './body-rules';

/**
 * class-transformer's own registry of @Type, @Transform, @Expose and @Exclude, and the options it
 * runs under when given none: it exports no typed path to either.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
export const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: MetadataStorage;
};
const { defaultOptions } = require('class-transformer/cjs/constants/default-options.constant') as {
  defaultOptions: ClassTransformOptions;
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** A DTO class, as class-transformer builds it (`new target()`). */
type BodyClass = new () => object;

/** What class-transformer registered for a property (its TypeMetadata, of which we read these). */
interface TypeRule {
  typeFunction?: (options?: TypeHelpOptions) => unknown;
  reflectedType?: unknown;
  options?: { discriminator?: unknown };
}

interface TransformRule {
  transformFn: (params: TransformFnParams) => unknown;
  options?: { groups?: string[] };
}

interface PropertyPlan {
  type: TypeRule | undefined;
  transforms: TransformRule['transformFn'][];
}

/** How one class's body becomes its instance: its properties with rules, nothing else. */
interface BodyPlan {
  target: BodyClass;
  properties: Map<string, PropertyPlan>;
}

/** Not built here: class-transformer itself has to (a shape this does not follow). */
export const NOT_BUILT = Symbol('not built');

/** The options class-transformer runs plainToInstance under when given none (Nest gives none). */
const TRANSFORM_OPTIONS = { ...defaultOptions };

/** Types class-transformer converts a value to: a value of one is left to it. */
const CONVERTED_TYPES: unknown[] = [String, Number, Boolean, Date, Buffer];

const plans = new Map<unknown, BodyPlan | null>();

/**
 * The class's plan, made at its first use and kept (decorators are all registered as classes
 * load), or null when the class uses what this does not follow: @Expose, @Exclude, a strategy,
 * grouped or discriminated rules, or a property the class defines itself (a getter or a method,
 * which class-transformer leaves alone).
 */
function planOf(target: unknown): BodyPlan | null {
  if (plans.has(target)) return plans.get(target) ?? null;
  const plan = typeof target === 'function' ? makePlan(target as BodyClass) : null;
  plans.set(target, plan);
  return plan;
}

function makePlan(target: BodyClass): BodyPlan | null {
  const storage = defaultMetadataStorage;
  if (
    storage.getStrategy(target) !== 'none' ||
    storage.getExposedMetadatas(target).length > 0 ||
    storage.getExcludedMetadatas(target).length > 0
  ) {
    return null;
  }
  const names = ruledProperties(target);
  if (!names) return null;
  const properties = new Map<string, PropertyPlan>();
  for (const name of names) {
    if (name === '__proto__' || name === 'constructor' || name in target.prototype) return null;
    const type = storage.findTypeMetadata(target, name) as TypeRule | undefined;
    if (type?.options?.discriminator) return null;
    const transforms = storage.findTransformMetadatas(
      target,
      name,
      TransformationType.PLAIN_TO_CLASS,
    ) as TransformRule[];
    if (transforms.some((rule) => rule.options?.groups?.length)) return null;
    properties.set(name, { type, transforms: transforms.map((rule) => rule.transformFn) });
  }
  return { target, properties };
}

/** An object made as JSON.parse makes one: its prototype is an Object.prototype (of any realm). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value) as object | null;
  return prototype !== null && Object.getPrototypeOf(prototype) === null;
}

/**
 * The instance of `target` that class-transformer's plainToInstance would build from a JSON
 * body (a checkout's), built by reading the class's decorators once instead of per request; or
 * NOT_BUILT for anything outside the shapes it follows: a key the class has no rule for, an
 * array, an object a property has no class for, a value class-transformer would convert. Those go
 * to class-transformer (and a key without a rule is refused by the validation after it anyway).
 */
export function bodyInstanceOf(target: unknown, body: unknown): object | typeof NOT_BUILT {
  const plan = planOf(target);
  return plan && isPlainObject(body) ? build(plan, body) : NOT_BUILT;
}

function build(plan: BodyPlan, body: Record<string, unknown>): object | typeof NOT_BUILT {
  const entity = new plan.target() as Record<string, unknown>;
  for (const key of Object.keys(body)) {
    const property = plan.properties.get(key);
    // class-transformer leaves alone a property the new instance already has as a function.
    if (!property || typeof entity[key] === 'function') return NOT_BUILT;
    let value = body[key];
    const { type } = property;
    const typeOf = type
      ? type.typeFunction
        ? type.typeFunction({ newObject: entity, object: body, property: key })
        : type.reflectedType
      : undefined;
    if (Array.isArray(value)) return NOT_BUILT;
    if (typeof value === 'object' && value !== null) {
      const nested = typeOf === undefined ? null : planOf(typeOf);
      if (!nested || !isPlainObject(value)) return NOT_BUILT;
      const instance = build(nested, value);
      if (instance === NOT_BUILT) return NOT_BUILT;
      value = instance;
    } else if (value !== null && value !== undefined && CONVERTED_TYPES.includes(typeOf)) {
      return NOT_BUILT;
    }
    for (const transform of property.transforms) {
      value = transform({
        value,
        key,
        obj: body,
        type: TransformationType.PLAIN_TO_CLASS,
        options: TRANSFORM_OPTIONS,
      });
    }
    // class-transformer sets a property even to undefined (exposeUnsetFields).
    entity[key] = value;
  }
  return entity;
}
