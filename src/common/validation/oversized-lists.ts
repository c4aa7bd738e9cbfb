import { MetadataStorage, ValidationError, getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { TextListRules, textListProblem } from './text-list.decorator';

interface ListLimit {
  property: string;
  max: number;
  message: (value: unknown[], object: object) => string;
  /** The property's ValidateIf conditions: the limit applies only where class-validator would check it. */
  conditions: Array<(object: object, value: unknown) => boolean>;
}

/** A DTO class, as class-validator keys its metadata. */
export type DtoType = Parameters<MetadataStorage['getTargetValidationMetadatas']>[0];

const limitsOf = new WeakMap<DtoType, ListLimit[]>();

function messageOf(meta: ValidationMetadata, value: unknown[], object: object): string {
  const args = { property: meta.propertyName, value, constraints: meta.constraints, targetName: '', object };
  if (typeof meta.message === 'function') return meta.message(args);
  return meta.message ?? `${meta.propertyName} must have at most ${String(meta.constraints[0])} items`;
}

/** The top-level list fields of a DTO with their item limits (ArrayMaxSize, IsTextList), read once per class. */
function listLimits(type: DtoType): ListLimit[] {
  const cached = limitsOf.get(type);
  if (cached) return cached;
  const metas = getMetadataStorage().getTargetValidationMetadatas(type, '', true, false);
  const limits: ListLimit[] = [];
  for (const meta of metas) {
    const conditions = () =>
      metas
        .filter((m) => m.type === 'conditionalValidation' && m.propertyName === meta.propertyName)
        .map((m) => m.constraints[0] as (object: object, value: unknown) => boolean);
    if (meta.name === 'arrayMaxSize' && !meta.each) {
      limits.push({
        property: meta.propertyName,
        max: Number(meta.constraints[0]),
        message: (value, object) => messageOf(meta, value, object),
        conditions: conditions(),
      });
    } else if (meta.name === 'isTextList') {
      const rules = meta.constraints[0] as TextListRules;
      limits.push({
        property: meta.propertyName,
        max: rules.max,
        message: (value) => `${meta.propertyName} ${textListProblem(value, rules) ?? 'is too long'}`,
        conditions: conditions(),
      });
    }
  }
  limitsOf.set(type, limits);
  return limits;
}

/**
 * The first top-level list of `body` longer than its DTO allows, as a validation error, or null.
 * Checked before the body is copied into the DTO and validated: class-transformer copies every
 * item (building a nested object for each), and class-validator runs every item rule even after
 * the size rule failed, so a 1 MiB body of 100,000 items would cost seconds of blocked event loop
 * to be refused by a count that is known at once.
 */
export function findOversizedList(type: DtoType, body: Record<string, unknown>): ValidationError | null {
  for (const limit of listLimits(type)) {
    const value = body[limit.property];
    if (!Array.isArray(value) || value.length <= limit.max) continue;
    if (!limit.conditions.every((condition) => condition(body, value))) continue;
    const error = new ValidationError();
    error.property = limit.property;
    error.constraints = { oversized: limit.message(value, body) };
    error.children = [];
    return error;
  }
  return null;
}
