import type { CanActivate, INestApplication, Type } from '@nestjs/common';
import { GUARDS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';

/**
 * The paths of every route a guard protects, read from the controllers' metadata (`@UseGuards`
 * on the class or the handler), so that a list of such routes cannot fall behind the code.
 * Paths are as Nest registers them: `/` + controller path + handler path, `:param` kept.
 */
export function routesGuardedBy(app: INestApplication, guard: Type<CanActivate>): string[] {
  const paths = new Set<string>();
  const scanner = new MetadataScanner();
  const guards = (target: object): unknown[] => (Reflect.getMetadata(GUARDS_METADATA, target) as unknown[]) ?? [];
  const uses = (target: object) => guards(target).some((entry) => entry === guard || entry instanceof guard);
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type | null;
      if (!controller) continue;
      const guardedClass = uses(controller);
      const prefixes = asList(Reflect.getMetadata(PATH_METADATA, controller));
      for (const name of scanner.getAllMethodNames(controller.prototype as object)) {
        const handler = (controller.prototype as Record<string, object>)[name];
        if (Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
        if (!guardedClass && !uses(handler)) continue;
        for (const prefix of prefixes)
          for (const path of asList(Reflect.getMetadata(PATH_METADATA, handler))) paths.add(joinPath(prefix, path));
      }
    }
  }
  return [...paths].sort();
}

function asList(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return [typeof value === 'string' ? value : ''];
}

function joinPath(...parts: string[]): string {
  return `/${parts
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;
}

/**
 * Whether a request path is one of `routes`, matched as Express routes them: case-insensitive,
 * a trailing slash allowed, `:param` one segment and `*name` the rest. Any other pattern syntax
 * is refused at boot rather than matched loosely.
 */
export function routeMatcher(routes: readonly string[]): (path: string) => boolean {
  const patterns = routes.map((route) => {
    if (/[{}()?+]/.test(route)) throw new Error(`routeMatcher: unsupported route pattern ${route}`);
    const body = route
      .split('/')
      .map((segment) => {
        if (segment.startsWith(':')) return '[^/]+';
        if (segment.startsWith('*')) return '.*';
        return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      })
      .join('/');
    return new RegExp(`^${body}/*$`, 'i');
  });
  return (path) => patterns.some((pattern) => pattern.test(path));
}
