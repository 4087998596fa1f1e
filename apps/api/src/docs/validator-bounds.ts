import { getMetadataStorage } from 'class-validator';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;
/** A class (its constructor). */
export type Klass = abstract new (...args: never[]) => unknown;

interface Rule {
  name?: string;
  propertyName: string;
  constraints?: unknown[];
  each?: boolean;
}

/**
 * The formats and bounds the validation pipe enforces, written into the schemas of the DTOs
 * they decorate (a generated client can then check them too): `@IsUUID` → `format: uuid`,
 * `@IsTimestamp` → `date-time`, `@IsEmail` → `email`, `@Min`/`@Max`, `@Length`/`@MaxLength`,
 * `@ArrayMinSize`/`@ArrayMaxSize`, `@IsAmount` → its bounds, `@IsInt` → `integer`, and
 * `@IsOptional` → `nullable` (the pipe takes `null` for "not sent"). What a
 * Swagger decorator says itself is kept. Components are matched to classes by name (Nest names
 * schemas after their class).
 */
export function boundsFromValidators(schemas: Json, bodyClasses: Klass[]): void {
  const storage = getMetadataStorage();
  // The classes with rules of their own (class-validator's map), and the body types of the
  // routes, which may only inherit theirs (`class UpdateOfferDto extends PartialType(…)`).
  const byClass = (storage as unknown as { validationMetadatas: Map<Klass, Rule[]> })
    .validationMetadatas;
  const classes = new Map([...byClass.keys(), ...bodyClasses].map((c) => [c.name, c]));
  for (const [name, schema] of Object.entries(schemas)) {
    const cls = classes.get(name);
    if (!cls || !schema.properties) continue;
    const rules = storage.getTargetValidationMetadatas(cls, '', true, false) as Rule[];
    for (const rule of rules) {
      const prop = schema.properties[rule.propertyName] as Json | undefined;
      if (prop && rule.name === 'isOptional') {
        // @IsOptional lets `null` through as "not sent": the schema admits it.
        if (prop.$ref) schema.properties[rule.propertyName] = { allOf: [{ $ref: prop.$ref }] };
        schema.properties[rule.propertyName].nullable = true;
        continue;
      }
      const target = rule.each ? prop?.items : prop;
      if (!target || target.$ref || target.allOf) continue;
      apply(target, rule.name, rule.constraints ?? []);
    }
  }
}

/** The smallest positive and the largest amount in major units (4 decimal places, below 10^12). */
export const MIN_POSITIVE_AMOUNT = 0.0001;
export const MAX_AMOUNT = 999_999_999_999.9999;

function apply(s: Json, name: string | undefined, c: unknown[]): void {
  const set = (key: string, value: unknown) => {
    if (s[key] === undefined) s[key] = value;
  };
  switch (name) {
    case 'isUuid':
      return set('format', 'uuid');
    case 'isTimestamp':
      return set('format', 'date-time');
    case 'isEmail':
      return set('format', 'email');
    case 'isInt':
      if (s.type === 'number') s.type = 'integer';
      return;
    case 'min':
      return set('minimum', c[0]);
    case 'max':
      return set('maximum', c[0]);
    case 'minLength':
      return set('minLength', c[0]);
    case 'maxLength':
      return set('maxLength', c[0]);
    case 'isLength':
      set('minLength', c[0]);
      if (c[1] !== undefined) set('maxLength', c[1]);
      return;
    case 'arrayMinSize':
      return set('minItems', c[0]);
    case 'arrayMaxSize':
      return set('maxItems', c[0]);
    case 'isAmount':
      // Amounts fit their currency (at most 4 decimal places) and stay below 10^12. Inclusive
      // bounds: OpenAPI 3.0's boolean exclusiveMinimum trips common generators' example checks.
      set('minimum', c[0] ? MIN_POSITIVE_AMOUNT : 0);
      set('maximum', MAX_AMOUNT);
      return;
  }
}
