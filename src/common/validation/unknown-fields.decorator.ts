import type { ValidationError } from 'class-validator';

const NOUN = Symbol('unknownFieldNoun');

/**
 * Marks a DTO whose unknown keys are refused (1004 `<path>: unknown <noun>`) rather than dropped,
 * for writes where a misspelt key silently ignored reads as a change that was made. On the DTO a
 * handler receives, the rule covers the whole body, nested objects included (subclasses inherit
 * it); on a nested class it only names its keys in the message (`capabilities.frends: unknown
 * capability`). Other DTOs keep dropping unknown keys (docs/api.md).
 */
export function RefuseUnknownFields(noun = 'field'): ClassDecorator {
  return (target) => Reflect.defineMetadata(NOUN, noun, target);
}

/** The noun a marked class (or an ancestor) gave, or undefined for an unmarked one. */
export function unknownFieldNoun(type: unknown): string | undefined {
  return typeof type === 'function' ? (Reflect.getMetadata(NOUN, type) as string | undefined) : undefined;
}

/**
 * Rewrites class-validator's "property x should not exist" as "x unknown <noun>", the noun being
 * that of the object holding the key: `owner` is the validated instance the errors were found in.
 */
export function nameUnknownFields(errors: ValidationError[], owner: unknown): void {
  for (const error of errors) {
    if (error.constraints?.whitelistValidation !== undefined) {
      const noun = unknownFieldNoun((owner as { constructor?: unknown } | null)?.constructor) ?? 'field';
      error.constraints = { whitelistValidation: `${error.property} unknown ${noun}` };
    } else if (error.children?.length) {
      const child =
        owner !== null && typeof owner === 'object' ? (owner as Record<string, unknown>)[error.property] : undefined;
      nameUnknownFields(error.children, child);
    }
  }
}
