import { INestApplication } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModulesContainer } from '@nestjs/core';
import { OpenAPIObject } from '@nestjs/swagger';
import type {
  ParameterObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import {
  ARRAY_MAX_SIZE,
  ARRAY_MIN_SIZE,
  getMetadataStorage,
  IS_EMAIL,
  IS_ENUM,
  IS_IN,
  IS_INT,
  IS_LENGTH,
  IS_UUID,
  MATCHES,
  MAX,
  MAX_LENGTH,
  MIN,
  MIN_LENGTH,
} from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { TransformationType } from 'class-transformer';
import { defaultMetadataStorage } from '@app/checkout/http/body-instances';

type Constructor = abstract new (...args: never[]) => unknown;

/**
 * The limits the api enforces on what it is sent, copied from the request classes' class-validator
 * rules into the document: the document cannot promise a bound the validation does not hold, and
 * a rule added to a DTO shows in the contract without a second declaration.
 */
export function withValidationBounds(app: INestApplication, document: OpenAPIObject): void {
  const schemas = document.components?.schemas ?? {};
  for (const target of validatedClasses()) {
    const schema = schemas[target.name] as SchemaObject | undefined;
    if (!schema?.properties) continue;
    for (const [property, rules] of rulesByProperty(target)) {
      const propertySchema = schema.properties[property] as SchemaObject | undefined;
      if (propertySchema) applyRules(propertySchema, rules, transformed(target, property));
    }
  }
  const queryClasses = queryClassesByOperation(app);
  for (const item of Object.values(document.paths)) {
    for (const operation of [item.get, item.post, item.put, item.patch, item.delete]) {
      const target = operation?.operationId ? queryClasses.get(operation.operationId) : undefined;
      if (!target) continue;
      const rules = rulesByProperty(target);
      for (const parameter of (operation?.parameters ?? []) as ParameterObject[]) {
        const own = parameter.in === 'query' ? rules.get(parameter.name) : undefined;
        if (own && parameter.schema) {
          applyRules(parameter.schema as SchemaObject, own, transformed(target, parameter.name));
        }
      }
    }
  }
}

/** Every class that carries class-validator rules (its internal map is the only list there is). */
function validatedClasses(): Constructor[] {
  const storage = getMetadataStorage() as unknown as {
    validationMetadatas: Map<Constructor, ValidationMetadata[]>;
  };
  return [...storage.validationMetadatas.keys()].filter(
    (target): target is Constructor => typeof target === 'function',
  );
}

/** A class's rules (its parents' included), by property. */
function rulesByProperty(target: Constructor): Map<string, ValidationMetadata[]> {
  const rules = new Map<string, ValidationMetadata[]>();
  for (const rule of getMetadataStorage().getTargetValidationMetadatas(
    target as unknown as new () => object,
    '',
    true,
    false,
  )) {
    rules.set(rule.propertyName, [...(rules.get(rule.propertyName) ?? []), rule]);
  }
  return rules;
}

/** operationId (Nest's default, Controller_method) → the class its @Query() argument is read into. */
function queryClassesByOperation(app: INestApplication): Map<string, Constructor> {
  const found = new Map<string, Constructor>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Constructor | null;
      if (!controller) continue;
      for (const method of Object.getOwnPropertyNames(controller.prototype)) {
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<
          string,
          { index: number; data?: unknown }
        >;
        const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, method) ??
          []) as Constructor[];
        for (const [key, arg] of Object.entries(args)) {
          if (Number(key.split(':')[0]) !== RouteParamtypes.QUERY || arg.data !== undefined) {
            continue;
          }
          const type = types[arg.index];
          if (typeof type === 'function') found.set(`${controller.name}_${method}`, type);
        }
      }
    }
  }
  return found;
}

/** The branches a rule applies to: the schema, its oneOf alternatives, or an array's items. */
function targetsOf(schema: SchemaObject, each: boolean): SchemaObject[] {
  if (each) return schema.items && !('$ref' in schema.items) ? [schema.items] : [];
  if (schema.oneOf) return schema.oneOf.filter((branch) => !('$ref' in branch)) as SchemaObject[];
  return [schema];
}

/** A property rewritten before it is validated (a phone as typed): its pattern is not the input's. */
function transformed(target: Constructor, property: string): boolean {
  return (
    defaultMetadataStorage.findTransformMetadatas(
      target as unknown as new () => object,
      property,
      TransformationType.PLAIN_TO_CLASS,
    ).length > 0
  );
}

type BoundedKind = 'string' | 'number' | 'array';
type Bound = 'maxLength' | 'minLength' | 'maximum' | 'minimum' | 'maxItems' | 'minItems';

/** The rules whose first constraint is one bound, and the kind of value each bounds. */
const ONE_BOUND: Partial<Record<string, { of: BoundedKind; bound: Bound }>> = {
  [MAX_LENGTH]: { of: 'string', bound: 'maxLength' },
  [MIN_LENGTH]: { of: 'string', bound: 'minLength' },
  [MAX]: { of: 'number', bound: 'maximum' },
  [MIN]: { of: 'number', bound: 'minimum' },
  [ARRAY_MAX_SIZE]: { of: 'array', bound: 'maxItems' },
  [ARRAY_MIN_SIZE]: { of: 'array', bound: 'minItems' },
};

function applyRules(
  schema: SchemaObject,
  rules: ValidationMetadata[],
  transformedFirst: boolean,
): void {
  for (const rule of rules) {
    const [first, second] = (rule.constraints ?? []) as unknown[];
    for (const target of targetsOf(schema, rule.each === true)) {
      const isString = target.type === 'string';
      const isNumber = target.type === 'number' || target.type === 'integer';
      const kind = isNumber ? 'number' : target.type;
      const single = rule.name === undefined ? undefined : ONE_BOUND[rule.name];
      if (single) {
        if (single.of === kind) target[single.bound] = first as number;
        continue;
      }
      switch (rule.name) {
        case IS_LENGTH:
          if (isString) {
            target.minLength = first as number;
            if (typeof second === 'number') target.maxLength = second;
          }
          break;
        case MATCHES:
          // A pattern with flags (case-insensitive) has no exact OpenAPI form, and one checked after
          // a rewrite is not the input's: their length bounds stand.
          if (
            isString &&
            !transformedFirst &&
            first instanceof RegExp &&
            first.flags === '' &&
            second === undefined
          ) {
            target.pattern = first.source;
          }
          break;
        case IS_IN:
          if (!target.enum) target.enum = [...(first as unknown[])];
          break;
        case IS_ENUM:
          if (!target.enum && Array.isArray(second)) target.enum = [...(second as unknown[])];
          break;
        case IS_UUID:
          if (isString) Object.assign(target, { format: 'uuid', minLength: 36, maxLength: 36 });
          break;
        case IS_EMAIL:
          if (isString) target.format = 'email';
          break;
        case IS_INT:
          if (isNumber) Object.assign(target, { type: 'integer', format: 'int32' });
          break;
      }
    }
  }
}
