import { METHOD_TABLE, READ_TABLE } from './registry-table.js';

export type Flag = 'M' | 'I' | 'G' | 'R' | 'P';

export interface MethodSpec {
  /** `<family>.<suffix>`, e.g. `board.createTask`. */
  name: string;
  family: string;
  scope: string;
  flags: readonly Flag[];
  mutating: boolean;
  idempotent: boolean;
  governed: boolean;
  readOnly: boolean;
  preAuth: boolean;
}

export interface ReadSpec {
  /** Path under /api/v1 without the slash, e.g. `events`, `board.ready`. */
  path: string;
  scope: string;
}

function parseEntry(family: string, suffix: string, entry: string): MethodSpec {
  const [scope, flagText] = entry.split(' ');
  const flags = [...flagText] as Flag[];
  return {
    name: `${family}.${suffix}`,
    family,
    scope,
    flags,
    mutating: flags.includes('M'),
    idempotent: flags.includes('I'),
    governed: flags.includes('G'),
    readOnly: flags.includes('R'),
    preAuth: flags.includes('P'),
  };
}

export const METHODS: ReadonlyMap<string, MethodSpec> = new Map(
  Object.entries(METHOD_TABLE).flatMap(([family, entries]) =>
    Object.entries(entries).map(([suffix, entry]) => {
      const spec = parseEntry(family, suffix, entry);
      return [spec.name, spec] as const;
    }),
  ),
);

export const READS: ReadonlyMap<string, ReadSpec> = new Map(Object.entries(READ_TABLE).map(([path, scope]) => [path, { path, scope }] as const));

export const FAMILIES: readonly string[] = Object.keys(METHOD_TABLE);

/** `family.method`: letters, digits and underscores, one dot. Anything else is BAD_REQUEST. */
export const METHOD_NAME = /^[a-z][a-zA-Z0-9_]*\.[a-zA-Z][a-zA-Z0-9_]*$/;

export function isWellFormedMethodName(name: string): boolean {
  return METHOD_NAME.test(name);
}

/** Static GET routes beside the 13 reads (spec: "org DTO reads under /api/v1/org/*"), same key and convention. */
export const STATIC_READS: ReadonlyMap<string, ReadSpec> = new Map([
  ['org/whoami', { path: 'org/whoami', scope: 'org.read' }],
  ['org/billing', { path: 'org/billing', scope: 'org.read' }],
  // Path parameters in braces: the gateway routes them and hands them to the read with the query.
  ['org/members/{id}', { path: 'org/members/{id}', scope: 'org.read' }],
  ['org/teams/{id}', { path: 'org/teams/{id}', scope: 'org.read' }],
  ['org/avatar/{memberId}/{size}', { path: 'org/avatar/{memberId}/{size}', scope: 'org.read' }],
  ['org/directory.vcf', { path: 'org/directory.vcf', scope: 'org.read' }],
  ['org/inbox', { path: 'org/inbox', scope: 'org.read' }],
  // The agent runtime's control plane (registrations and presence, leases, the company profile and offices).
  ['org/agents', { path: 'org/agents', scope: 'org.read' }],
  ['org/leases', { path: 'org/leases', scope: 'org.read' }],
  ['org/company', { path: 'org/company', scope: 'org.read' }],
  // REST-style aliases for generative-UI artifacts (spec: under /api/v1/artifacts): artifact.list, catalog and get.
  ['artifacts', { path: 'artifacts', scope: 'messaging.read' }],
  ['artifacts/catalog', { path: 'artifacts/catalog', scope: 'messaging.read' }],
  ['artifacts/{id}', { path: 'artifacts/{id}', scope: 'messaging.read' }],
]);
