import { getSchemaPath } from '@nestjs/swagger';

/**
 * A property holding an object of `model` or null. OpenAPI 3.0 ignores `nullable` beside a $ref
 * (and `allOf` still applies the referenced object schema to null), so null is its own branch.
 * The model must also be registered with @ApiExtraModels where it is used.
 */
export function objectOrNull(model: new () => object) {
  return {
    oneOf: [
      { $ref: getSchemaPath(model) },
      { type: 'object' as const, nullable: true, enum: [null] },
    ],
  };
}
