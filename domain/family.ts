import type { MethodHandler, ReadHandler } from './handler.js';

/** A family's deployed handlers keyed by full method name (`board.createTask`). */
export function family(name: string, handlers: Record<string, MethodHandler<any>>): Map<string, MethodHandler> {
  return new Map(Object.entries(handlers).map(([suffix, h]) => [`${name}.${suffix}`, h as MethodHandler]));
}

export function reads(handlers: Record<string, ReadHandler<any>>): Map<string, ReadHandler> {
  return new Map(Object.entries(handlers) as [string, ReadHandler][]);
}
